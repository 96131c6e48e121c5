// A tool's round trip inside a turn: from the moment the fake model has finished streaming a reply that
// calls one tool to the moment the turn's next model request reaches it, for a tool of a remote MCP
// server beside a tool of a built-in server. In between: the step's end in the workflow, the tool
// activity, the tool.call / tool.result events and the tool message, and the next model step.
//   - `mcp`: a fake MCP server registered with PUT /mcp/<id> (stateless Streamable HTTP on 127.0.0.1, its
//     tool answers at once). The service opens a connection per call (initialize, then tools/call).
//   - `builtin`: `current_time` of the built-in `time` server, run inside the worker.
//   - `everything`: `echo` of `@modelcontextprotocol/server-everything`, a server nobody here wrote, in a
//     process of its own.
//   - `oauth` and `oauthStatic`: one OAuth-protected server (the SDK's auth router and bearer middleware),
//     registered twice: signed in to with OAuth (the token read from its sealed connection at each call),
//     and with the same access token as a static header secret. Their difference is what a sign-in costs a call.
// The fake model answers at once, and records neither when a response ended nor why: its `onChunk`
// hook runs as each streamed chunk is handed to the socket, and the finish chunk and `[DONE]` follow the
// last one synchronously, so the last call of the hook is when the tool call's response ended.
import http from 'node:http';
import type { SessionEvent } from '../contract/events.ts';
import { startEverythingServer, startFakeMcpServer, text, type EverythingServer } from '../test/helpers/fakes/mcp-servers.ts';
import { startOAuthMcpServer } from '../test/helpers/fakes/oauth-mcp-server.ts';
import type { Benchmark } from './benchmark.ts';
import { startAgentStack, type AgentStack } from './agent-stack.ts';
import { expectStatus, timedRequest } from './http-json.ts';
import { summarize, type Latency } from './measure.ts';

const RUNS = 30;
const WARMUP = 5;
const FAKE_ID = 'bench-fake';
const EVERYTHING_ID = 'bench-everything';
const OAUTH_ID = 'bench-oauth';
const OAUTH_STATIC_ID = 'bench-oauth-static';

type Kind = 'mcp' | 'builtin' | 'everything' | 'oauth' | 'oauthStatic';

interface Target {
  kind: Kind;
  agentName: string;
  call: { name: string; arguments: Record<string, unknown> };
}

interface Sample {
  /** End of the tool-call response → the next model request. */
  roundTripMs: number;
  /** The first model request → the next one (the measure of `client-tools`' builtinToolGap). */
  requestGapMs: number;
  /** For the fake MCP server: end of the tool-call response → its tool ran; HTTP requests it got for the call. */
  toServerMs?: number;
  httpRequests?: number;
}

/** The receipt time of the fake model's request at `index` (Date.now(), the clock used here too). */
async function requestAt(stack: AgentStack, index: number): Promise<number> {
  for (;;) {
    const request = stack.fake.requests[index];
    if (request) return request.receivedAt;
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}

async function toolResult(stack: AgentStack, agent: http.Agent, sessionId: string) {
  const page = expectStatus(
    await timedRequest<{ events: SessionEvent[] }>(agent, `${stack.url}/session/${sessionId}/events?after=0&limit=1000`, {
      headers: stack.headers,
      timeoutMs: 30_000,
    }),
    200,
    'GET /session/<id>/events',
  );
  return page.events.find((event) => event.type === 'tool.result');
}

const round = (ms: number) => Math.round(ms * 1000) / 1000;
const difference = (a: Latency, b: Latency) => ({
  p50Ms: round(a.p50Ms - b.p50Ms),
  p90Ms: round(a.p90Ms - b.p90Ms),
  p99Ms: round(a.p99Ms - b.p99Ms),
  p50Ratio: Math.round((a.p50Ms / b.p50Ms) * 100) / 100,
});

const mcpTool: Benchmark = {
  name: 'mcp-tool',
  description:
    `tool round trip (end of the model's tool-call response → the turn's next model request, at the fake model) of a remote ` +
    `MCP server's tool (a fake on Streamable HTTP that answers at once) vs the built-in time server's, and server-everything's ` +
    `echo; ${RUNS} sequential turns each after ${WARMUP} warm-ups`,
  needs: ['postgres', 'temporal'],
  async run({ infra, log }) {
    const stack = await startAgentStack(infra, log, {
      env: { OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8' },
      fake: { defaultScript: { text: 'done' } },
    });
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    let calledAt = 0;
    const fakeMcp = await startFakeMcpServer([
      {
        name: 'lookup_order',
        description: 'Look up an order',
        inputSchema: { type: 'object', properties: { orderId: { type: 'string' } }, required: ['orderId'] },
        run: () => {
          calledAt = Date.now();
          return text('shipped');
        },
      },
    ]);
    let everything: EverythingServer | undefined;
    let everythingError: string | undefined;
    try {
      everything = await startEverythingServer();
    } catch (error) {
      everythingError = (error as Error).message;
      log(`server-everything did not start, measured without it: ${everythingError}`);
    }
    const oauth = await startOAuthMcpServer();
    try {
      const register = async (id: string, url: string, more: Record<string, unknown> = {}) =>
        expectStatus(
          await timedRequest(agent, `${stack.url}/mcp/${id}`, {
            method: 'PUT',
            headers: stack.headers,
            body: JSON.stringify({ url, description: 'benchmark', ...more }),
            timeoutMs: 30_000,
          }),
          201,
          `PUT /mcp/${id}`,
        );
      await register(FAKE_ID, fakeMcp.url);
      // Signed in as a person would: the authorization URL, the server's consent, the callback's button.
      await register(OAUTH_ID, oauth.url, { auth: { type: 'oauth' } });
      const started = expectStatus(
        await timedRequest<{ authorizationUrl: string }>(agent, `${stack.url}/mcp/${OAUTH_ID}/connect`, {
          method: 'POST',
          headers: stack.headers,
          timeoutMs: 30_000,
        }),
        200,
        'POST /mcp/<id>/connect',
      );
      const consent = await fetch(started.authorizationUrl, { redirect: 'manual' });
      const callback = new URL(consent.headers.get('location')!);
      const finished = await fetch(`${stack.url}/mcp-oauth/callback`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: callback.searchParams,
      });
      if (finished.status !== 200) throw new Error(`the sign-in did not finish: ${finished.status} ${await finished.text()}`);
      expectStatus(
        await timedRequest(agent, `${stack.url}/secret/BENCH_OAUTH_TOKEN`, {
          method: 'PUT',
          headers: stack.headers,
          body: JSON.stringify({ value: oauth.accessTokens().at(-1), hosts: ['127.0.0.1'] }),
          timeoutMs: 30_000,
        }),
        201,
        'PUT /secret/BENCH_OAUTH_TOKEN',
      );
      await register(OAUTH_STATIC_ID, oauth.url, { headers: { Authorization: 'Bearer {{secrets.BENCH_OAUTH_TOKEN}}' } });
      const targets: Target[] = [
        {
          kind: 'mcp',
          agentName: await stack.deployAgent({ mcps: [FAKE_ID] }),
          call: { name: 'lookup_order', arguments: { orderId: 'O-1' } },
        },
        { kind: 'builtin', agentName: await stack.deployAgent({ mcps: ['time'] }), call: { name: 'current_time', arguments: {} } },
        { kind: 'oauth', agentName: await stack.deployAgent({ mcps: [OAUTH_ID] }), call: { name: 'whoami', arguments: {} } },
        { kind: 'oauthStatic', agentName: await stack.deployAgent({ mcps: [OAUTH_STATIC_ID] }), call: { name: 'whoami', arguments: {} } },
      ];
      if (everything) {
        await register(EVERYTHING_ID, everything.url);
        targets.push({
          kind: 'everything',
          agentName: await stack.deployAgent({ mcps: [EVERYTHING_ID] }),
          call: { name: 'echo', arguments: { message: 'hello' } },
        });
      }

      const turn = async (target: Target, run: number): Promise<Sample> => {
        const sessionId = await stack.newSession(target.agentName);
        let responseEndedAt = 0;
        stack.fake.enqueue(
          {
            toolCalls: [{ id: `call_${target.kind}_${run + WARMUP}`, ...target.call }],
            onChunk: () => {
              responseEndedAt = Date.now();
            },
          },
          { text: 'done' },
        );
        const first = stack.fake.requests.length;
        const httpBefore = fakeMcp.requests.length;
        calledAt = 0;
        await stack.send(agent, sessionId, 'use the tool');
        const next = await requestAt(stack, first + 1);
        const result = await toolResult(stack, agent, sessionId);
        if (!result || result.type !== 'tool.result' || result.isError) {
          throw new Error(`${target.kind}: the tool did not answer: ${JSON.stringify(result)}`);
        }
        return {
          roundTripMs: next - responseEndedAt,
          requestGapMs: next - (await requestAt(stack, first)),
          ...(target.kind === 'mcp' ? { toServerMs: calledAt - responseEndedAt, httpRequests: fakeMcp.requests.length - httpBefore } : {}),
        };
      };

      const samples = new Map<Kind, Sample[]>(targets.map((target) => [target.kind, []]));
      for (let run = -WARMUP; run < RUNS; run++) {
        // The kinds take turns in a rotating order, so a slow spell of the machine hits all alike.
        for (let position = 0; position < targets.length; position++) {
          const target = targets[(position + run + WARMUP) % targets.length]!;
          const sample = await turn(target, run);
          if (run >= 0) samples.get(target.kind)!.push(sample);
        }
        if (run >= 0 && (run + 1) % 10 === 0) log(`${run + 1}/${RUNS}`);
      }

      const of = (kind: Kind, pick: (sample: Sample) => number | undefined) => summarize(samples.get(kind)!.map((sample) => pick(sample)!));
      const mcp = of('mcp', (sample) => sample.roundTripMs);
      const builtin = of('builtin', (sample) => sample.roundTripMs);
      const everythingRoundTrip = everything ? of('everything', (sample) => sample.roundTripMs) : undefined;
      const signedIn = of('oauth', (sample) => sample.roundTripMs);
      const staticToken = of('oauthStatic', (sample) => sample.roundTripMs);
      const httpRequests = samples.get('mcp')!.map((sample) => sample.httpRequests!);
      return {
        runs: RUNS,
        warmups: WARMUP,
        method:
          'sequential turns, each in a new session, the kinds in rotating order; a round trip is the receipt of the turn’s ' +
          'second model request (Date.now() in the fake model) minus the time its first response, the tool call, was handed ' +
          'to the socket in full (Date.now() in its last chunk hook); API, worker, fakes and this timing share one process',
        roundTrip: {
          mcp,
          builtin,
          ...(everythingRoundTrip ? { everything: everythingRoundTrip } : { everything: { error: everythingError } }),
        },
        mcpMinusBuiltin: difference(mcp, builtin),
        // The goal: a call on a signed-in server within 5 ms p50 of the same server with a static header.
        oauth: { signedIn, staticToken, signedInMinusStatic: difference(signedIn, staticToken) },
        ...(everythingRoundTrip ? { everythingMinusBuiltin: difference(everythingRoundTrip, builtin) } : {}),
        mcpSplit: {
          responseEndToToolRunMs: of('mcp', (sample) => sample.toServerMs),
          toolRunToNextRequestMs: of('mcp', (sample) => sample.roundTripMs - sample.toServerMs!),
          httpRequestsPerCall: { min: Math.min(...httpRequests), max: Math.max(...httpRequests) },
        },
        firstToSecondRequest: {
          mcp: of('mcp', (sample) => sample.requestGapMs),
          builtin: of('builtin', (sample) => sample.requestGapMs),
          ...(everythingRoundTrip ? { everything: of('everything', (sample) => sample.requestGapMs) } : {}),
        },
      };
    } finally {
      agent.destroy();
      await stack.close();
      await everything?.close();
      await fakeMcp.close();
      await oauth.close();
    }
  },
};

export default mcpTool;
