// A fake Telegram Bot API for tests: a real HTTP server on 127.0.0.1 that records every
// /bot<token>/sendMessage call (token, headers, JSON body) and answers like Telegram,
// `{ok: true, result: {message_id, chat: {id}}}` with increasing message ids, or with scripted
// failures (`{ok: false, error_code, description}` under the same HTTP status).
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { closeServer, readJsonRequest, sendJson, waitForCount } from './recorded.ts';

export interface TelegramCall {
  /** The bot token taken from the path. */
  token: string;
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: Record<string, unknown> | undefined;
  raw: string;
  /** What the fake answered, once it has: `{ok, result: {message_id, chat}}` or the scripted body. */
  answer?: unknown;
}

export interface TelegramAnswer {
  status: number;
  body: unknown;
}

export interface FakeTelegram {
  /** What TELEGRAM_API_BASE_URL would be. */
  baseUrl: string;
  calls: TelegramCall[];
  /** Answers for the next sendMessage calls, in order; success once the script runs out. */
  enqueue(...answers: TelegramAnswer[]): void;
  waitForCalls(count: number, timeoutMs?: number): Promise<TelegramCall[]>;
  close(): Promise<void>;
}

/** The chat id answered when the request named a chat by @username. */
export const CHANNEL_CHAT_ID = -1001234567890;
export const FIRST_MESSAGE_ID = 501;

/** Telegram's answer to a refused call. */
export function telegramError(code: number, description: string, retryAfter?: number): TelegramAnswer {
  return {
    status: code,
    body: { ok: false, error_code: code, description, ...(retryAfter === undefined ? {} : { parameters: { retry_after: retryAfter } }) },
  };
}

export async function startFakeTelegram(): Promise<FakeTelegram> {
  const calls: TelegramCall[] = [];
  const script: TelegramAnswer[] = [];
  let nextMessageId = FIRST_MESSAGE_ID;
  const server = createServer((req, res) => {
    void readJsonRequest(req).then(({ raw, body }) => {
      const reply = (status: number, answer: unknown) => {
        const call = calls.at(-1);
        if (call && call.raw === raw) call.answer = answer;
        sendJson(res, status, answer);
      };
      const match = /^\/bot([^/]+)\/sendMessage$/.exec(req.url ?? '');
      if (req.method !== 'POST' || !match) return reply(404, { ok: false, error_code: 404, description: 'Not Found' });
      calls.push({ token: decodeURIComponent(match[1]!), method: req.method, path: req.url ?? '', headers: req.headers, body, raw });
      const scripted = script.shift();
      if (scripted) return reply(scripted.status, scripted.body);
      const chatId = body?.chat_id;
      const id =
        typeof chatId === 'number' ? chatId : typeof chatId === 'string' && /^-?\d+$/.test(chatId) ? Number(chatId) : CHANNEL_CHAT_ID;
      const result = {
        message_id: nextMessageId++,
        date: 1_700_000_000,
        chat: { id, type: id < 0 ? 'supergroup' : 'private' },
        text: body?.text,
      };
      reply(200, { ok: true, result });
    });
  });
  server.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    calls,
    enqueue(...answers) {
      script.push(...answers);
    },
    waitForCalls(count, timeoutMs = 10_000) {
      return waitForCount(calls, count, timeoutMs, 'fake Telegram');
    },
    close: () => closeServer(server),
  };
}
