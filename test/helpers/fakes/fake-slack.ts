// A fake Slack Web API for tests: a real HTTP server on 127.0.0.1 that records every
// chat.postMessage call (headers and JSON body) and answers like Slack, `{ok: true, channel, ts}`
// with increasing timestamps, or with scripted answers (`{ok: false, error}`, an HTTP status).
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { closeServer, readJsonRequest, sendJson, waitForCount } from './recorded.ts';

export interface SlackCall {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body (undefined when it is not JSON). */
  body: Record<string, unknown> | undefined;
  raw: string;
  /** What the fake answered, once it has: `{ok, channel, ts, …}` or the scripted body. */
  answer?: unknown;
}

export interface SlackAnswer {
  status?: number;
  body: unknown;
}

export interface FakeSlack {
  /** What SLACK_API_BASE_URL would be: `http://127.0.0.1:<port>/api`. */
  baseUrl: string;
  calls: SlackCall[];
  /** Answers for the next chat.postMessage calls, in order; success once the script runs out. */
  enqueue(...answers: SlackAnswer[]): void;
  waitForCalls(count: number, timeoutMs?: number): Promise<SlackCall[]>;
  close(): Promise<void>;
}

/** Slack's answer to a refused call: HTTP 200 with `{ok: false, error}`. */
export function slackError(error: string, status = 200): SlackAnswer {
  return { status, body: { ok: false, error } };
}

export async function startFakeSlack(): Promise<FakeSlack> {
  const calls: SlackCall[] = [];
  const script: SlackAnswer[] = [];
  let posted = 0;
  const server = createServer((req, res) => {
    void readJsonRequest(req).then(({ raw, body }) => {
      const reply = (status: number, answer: unknown) => {
        const call = calls.at(-1);
        if (call && call.raw === raw) call.answer = answer;
        sendJson(res, status, answer);
      };
      if (req.method !== 'POST' || req.url !== '/api/chat.postMessage') return reply(404, { ok: false, error: 'unknown_method' });
      calls.push({ method: req.method, path: req.url, headers: req.headers, body, raw });
      const scripted = script.shift();
      if (scripted) return reply(scripted.status ?? 200, scripted.body);
      posted += 1;
      const ts = `1700000000.${String(posted * 100).padStart(6, '0')}`;
      reply(200, { ok: true, channel: body?.channel, ts, message: { type: 'message', text: body?.text, ts } });
    });
  });
  server.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/api`,
    calls,
    enqueue(...answers) {
      script.push(...answers);
    },
    waitForCalls(count, timeoutMs = 10_000) {
      return waitForCount(calls, count, timeoutMs, 'fake Slack');
    },
    close: () => closeServer(server),
  };
}
