// Retries against a tiny local HTTP server that answers from a script: 429 retried after its
// Retry-After, 503 retried, a retried send carrying the same Idempotency-Key, a broken connection
// retried only for idempotent calls, 500 of a call that acts not retried; timeouts and aborts.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  APIConnectionError,
  APITimeoutError,
  APIUserAbortError,
  Client,
  InternalServerError,
  RateLimitError,
  ServiceUnavailableError,
} from '../../sdk/src/index.ts';

type Answer = { status: number; headers?: Record<string, string>; body?: unknown } | 'destroy' | 'hang';

const script: Answer[] = [];
const seen: Array<{ method: string; url: string; headers: IncomingHttpHeaders; body: string }> = [];
let baseUrl = '';

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    seen.push({ method: req.method!, url: req.url!, headers: req.headers, body: Buffer.concat(chunks).toString() });
    const answer = script.shift() ?? { status: 200, body: { ok: true } };
    if (answer === 'destroy') return req.socket.destroy();
    if (answer === 'hang') return;
    const problem = answer.status >= 400;
    res.writeHead(answer.status, { 'content-type': problem ? 'application/problem+json' : 'application/json', ...answer.headers });
    res.end(
      JSON.stringify(answer.body ?? (problem ? { type: 'about:blank', title: 'scripted', status: answer.status, traceId: 't-1' } : {})),
    );
  });
});

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  return new Promise<void>((resolve) => server.close(() => resolve()));
});

function reset(...answers: Answer[]): void {
  script.splice(0, script.length, ...answers);
  seen.splice(0, seen.length);
}

const client = () => new Client({ baseUrl, apiKey: 'sk_test' });

describe('retries', () => {
  test('a 429 is retried after its Retry-After, then answers', async () => {
    reset({ status: 429, headers: { 'retry-after': '1' } }, { status: 200, body: { keys: [] } });
    expect(await client().keys.list()).toEqual({ keys: [] });
    expect(seen).toHaveLength(2);
  });

  test('a 429 past maxRetries is a RateLimitError with retryAfter', async () => {
    reset({ status: 429, headers: { 'retry-after': '7' } });
    const error = await client()
      .keys.list({ maxRetries: 0 })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RateLimitError);
    expect((error as RateLimitError).retryAfter).toBe(7);
    expect((error as RateLimitError).traceId).toBe('t-1');
  });

  test('a send answered 503 is retried with the same Idempotency-Key', async () => {
    reset(
      { status: 503, headers: { 'retry-after': '0' } },
      { status: 503, headers: { 'retry-after': '0' } },
      { status: 200, body: { messageId: 'msg_1', reply: 'hi', status: 'completed' } },
    );
    expect(await client().sessions.sendAndWait('ses_1', 'hello')).toMatchObject({ reply: 'hi' });
    expect(seen).toHaveLength(3);
    const keys = seen.map((request) => request.headers['idempotency-key']);
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Set(keys).size).toBe(1);
    expect(JSON.parse(seen[2]!.body)).toEqual({ parts: [{ type: 'text', text: 'hello' }] });
  });

  test('two sends carry two keys', async () => {
    reset();
    await client().sessions.sendAsync('ses_1', 'one');
    await client().sessions.sendAsync('ses_1', 'two');
    expect(seen[0]!.headers['idempotency-key']).not.toBe(seen[1]!.headers['idempotency-key']);
    expect(seen[0]!.url).toBe('/session/ses_1?async=1');
  });

  test('askHuman retried after a 503 asks once: the same key', async () => {
    reset(
      { status: 503, headers: { 'retry-after': '0' } },
      { status: 201, body: { id: 'apr_1', status: 'unanswered', question: 'q', options: ['yes', 'no'] } },
    );
    const handle = await client().askHuman({ question: 'q' });
    expect(handle.id).toBe('apr_1');
    expect(seen[0]!.headers['idempotency-key']).toBe(seen[1]!.headers['idempotency-key']);
  });

  test('a 503 past the retries is a ServiceUnavailableError', async () => {
    reset(
      { status: 503, headers: { 'retry-after': '0' } },
      { status: 503, headers: { 'retry-after': '0' } },
      { status: 503, headers: { 'retry-after': '0' } },
    );
    await expect(client().keys.list()).rejects.toBeInstanceOf(ServiceUnavailableError);
    expect(seen).toHaveLength(3);
  });

  test('a 500 is retried for a read, not for a call that acts without a key', async () => {
    reset({ status: 500 }, { status: 200, body: { agents: [] } });
    expect(await client().agents.list()).toEqual({ agents: [] });
    reset({ status: 500 });
    await expect(client().sessions.create('helper')).rejects.toBeInstanceOf(InternalServerError);
    expect(seen).toHaveLength(1);
  });

  test('a dropped connection is retried for a read, not for a call that acts without a key', async () => {
    reset('destroy', { status: 200, body: { keys: [] } });
    expect(await client().keys.list()).toEqual({ keys: [] });
    expect(seen).toHaveLength(2);
    reset('destroy');
    await expect(client().sessions.fork('ses_1')).rejects.toBeInstanceOf(APIConnectionError);
    expect(seen).toHaveLength(1);
  });

  test('no answer within timeoutMs is an APITimeoutError; an abort is an APIUserAbortError', async () => {
    reset('hang');
    await expect(client().keys.list({ timeoutMs: 200, maxRetries: 0 })).rejects.toBeInstanceOf(APITimeoutError);
    reset('hang');
    const stop = new AbortController();
    const pending = client().keys.list({ signal: stop.signal });
    stop.abort();
    await expect(pending).rejects.toBeInstanceOf(APIUserAbortError);
  });

  test('the environment gives the defaults', async () => {
    process.env.AGENT_SERVICE_URL = baseUrl;
    process.env.AGENT_SERVICE_API_KEY = 'sk_from_env';
    try {
      reset();
      await new Client().keys.list();
      expect(seen[0]!.headers.authorization).toBe('Bearer sk_from_env');
    } finally {
      delete process.env.AGENT_SERVICE_URL;
      delete process.env.AGENT_SERVICE_API_KEY;
    }
  });
});
