// Exactly-once tool effects across a worker's death: a worker SIGKILLed while an `http` call or a remote
// MCP call is in flight; the call is tried again on another worker, and the receiver sees the same
// idempotency key on every attempt (the one the tool.call event names), so it can do the effect once.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, expect } from 'vitest';
import { agentTest } from '../helpers/harness/fixtures.ts';
import { startWorkerProcess, workersKilledAfterAll } from '../helpers/harness/worker-process.ts';
import { call } from '../helpers/client/request.ts';
import { closeServer } from '../helpers/fakes/recorded.ts';
import { startFakeMcpServer, text, type FakeMcpServer } from '../helpers/fakes/mcp-servers.ts';
import type { AgentEnv } from '../helpers/harness/agent-env.ts';
import type { SessionEvent } from '../../contract/events.ts';

const test = agentTest({ OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8' }, { inProcessWorker: false });
const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  await Promise.all(closers.map((close) => close()));
});
// Registered after the closers: vitest runs a file's afterAll hooks last to first, so the workers go first.
const workers = workersKilledAfterAll();

/** Sends `words` without waiting, kills the worker once `attempts()` reached one, and waits for the turn on a new worker. */
async function killedDuringCall(env: AgentEnv, sessionId: string, attempts: () => number): Promise<SessionEvent[]> {
  // One worker only: the call must be running on the one that is killed.
  await Promise.all(workers.splice(0).map((worker) => worker.kill('SIGKILL')));
  workers.push(await startWorkerProcess(env.env));
  const sent = await call(`${env.api.url}/session/${sessionId}?async=1`, {
    headers: env.user.auth,
    json: { parts: [{ type: 'text', text: 'go' }] },
  });
  expect(sent.status).toBe(202);
  const deadline = Date.now() + 30_000;
  while (attempts() < 1) {
    if (Date.now() > deadline) throw new Error('the tool was never called');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  await workers.at(-1)!.kill('SIGKILL');
  workers.push(await startWorkerProcess(env.env));
  return env.waitForEvents(
    sessionId,
    (events) => events.some((event) => event.type === 'turn.completed' || event.type === 'turn.failed'),
    90_000,
  );
}

const keyOf = (events: SessionEvent[]) => {
  const called = events.find((event) => event.type === 'tool.call');
  return (called as { idempotencyKey?: string } | undefined)?.idempotencyKey;
};

test('the http tool: every attempt sends the same Idempotency-Key', { timeout: 180_000 }, async ({ env }) => {
  const keys: (string | undefined)[] = [];
  // The first request never gets an answer: its worker dies meanwhile. The next is answered.
  const receiver: Server = createServer((req, res) => {
    keys.push(req.headers['idempotency-key'] as string | undefined);
    if (keys.length > 1) res.writeHead(200, { 'content-type': 'text/plain' }).end('refunded');
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  closers.push(() => closeServer(receiver));
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/refund`;

  const sessionId = await env.newSession({ mcps: ['http'] });
  env.fake.enqueue(
    { toolCalls: [{ id: 'c1', name: 'http_request', arguments: { url, method: 'POST', body: '{"order":12}' } }] },
    { text: 'Refunded.' },
  );
  const events = await killedDuringCall(env, sessionId, () => keys.length);

  expect(events.filter((event) => event.type === 'turn.completed')).toHaveLength(1);
  expect(keys.length).toBe(2);
  expect(keys[0]).toMatch(/^[0-9a-f]{32}$/);
  expect(keys[1]).toBe(keys[0]);
  expect(keyOf(events)).toBe(keys[0]);
  expect(events.filter((event) => event.type === 'tool.result')).toEqual([
    expect.objectContaining({ output: expect.objectContaining({ body: 'refunded' }) }),
  ]);
});

test('a remote MCP tool: every attempt carries the same key in _meta', { timeout: 180_000 }, async ({ env }) => {
  let calls = 0;
  const server: FakeMcpServer = await startFakeMcpServer([
    { name: 'file_refund', run: () => (++calls === 1 ? new Promise(() => undefined) : text('refund filed')) },
  ]);
  closers.push(() => server.close());
  await call(`${env.api.url}/mcp/refunds`, { method: 'PUT', headers: env.user.auth, json: { url: server.url } });
  const sessionId = await env.newSession({ mcps: ['refunds'] });
  env.fake.enqueue({ toolCalls: [{ id: 'c1', name: 'file_refund', arguments: { order: 12 } }] }, { text: 'Filed.' });
  const events = await killedDuringCall(env, sessionId, () => server.calls.length);

  expect(events.filter((event) => event.type === 'turn.completed')).toHaveLength(1);
  expect(server.calls.length).toBe(2);
  const metaKeys = server.calls.map((received) => received.meta?.idempotencyKey);
  expect(metaKeys[0]).toMatch(/^[0-9a-f]{32}$/);
  expect(metaKeys[1]).toBe(metaKeys[0]);
  expect(keyOf(events)).toBe(metaKeys[0]);
  expect(events.filter((event) => event.type === 'tool.result')).toEqual([expect.objectContaining({ output: 'refund filed' })]);
});
