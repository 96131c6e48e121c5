// When a dependency is down the API answers, and answers clearly: a send is taken from PostgreSQL with
// no worker running and Temporal out of reach (and its turn runs once they are back), every other call
// to Temporal is a 503 with Retry-After within TEMPORAL_CALL_TIMEOUT_MS, a stalled PostgreSQL is a 503
// within its timeouts, and no 503 names an internal address or carries raw driver text.
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest';
import pg from 'pg';
import { startAgentEnv, type AgentEnv } from '../helpers/harness/agent-env.ts';
import { startTestApi, type TestApi } from '../helpers/harness/api.ts';
import { createTestUser, type TestUser } from '../helpers/harness/users.ts';
import { sseReader } from '../helpers/client/sse-reader.ts';
import { call } from '../helpers/client/request.ts';
import { freePort } from '../../dev/ports.ts';

/** Longest a request may go unanswered before the test calls it hung (well above every deadline set here). */
const HUNG_MS = 20_000;

interface Answer {
  status: number;
  headers: Headers;
  text: string;
  body: Record<string, unknown>;
}

/** A request that fails the test, instead of hanging it, when the API never answers. */
async function request(url: string, init: { method?: string; headers?: Record<string, string>; json?: unknown } = {}): Promise<Answer> {
  const headers: Record<string, string> = { ...init.headers };
  if (init.json !== undefined) headers['content-type'] = 'application/json';
  let response: Response;
  try {
    response = await fetch(url, {
      method: init.method ?? (init.json === undefined ? 'GET' : 'POST'),
      headers,
      ...(init.json !== undefined ? { body: JSON.stringify(init.json) } : {}),
      signal: AbortSignal.timeout(HUNG_MS),
    });
  } catch (error) {
    throw new Error(`${init.method ?? 'POST'} ${url} got no answer within ${HUNG_MS} ms (${String(error)})`);
  }
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

/** A 503 problem with an integer Retry-After, naming no address and carrying no raw gRPC or pg text. */
function expectUnavailable(answer: Answer, hidden: RegExp[] = []): void {
  expect(answer.status, answer.text).toBe(503);
  expect(answer.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(answer.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
  expect(answer.body).toMatchObject({ status: 503, title: expect.any(String), detail: expect.any(String) });
  const raw = [
    /\d{1,3}(\.\d{1,3}){3}/,
    /localhost/i,
    /[a-z0-9\]]:\d{2,5}\b/i,
    /UNAVAILABLE|DEADLINE_EXCEEDED|ECONN/,
    /grpc|Failed to|timeout exceeded|canceling statement/i,
  ];
  for (const pattern of [...raw, ...hidden]) expect(answer.text).not.toMatch(pattern);
}

const sendBody = (text: string) => ({ parts: [{ type: 'text', text }] });

describe('no worker polls the task queue', () => {
  let env: AgentEnv;
  beforeAll(async () => {
    // The queue is the env's own: nothing polls it until the test starts a worker on it.
    env = await startAgentEnv({ TEMPORAL_CALL_TIMEOUT_MS: '1500' }, { inProcessWorker: false });
  });
  afterAll(async () => env?.close());

  test('every send is taken at once and runs, in order, when a worker starts; a stream starts with its message; reject is 409; an abort is taken too, and ends the first turn as it starts', async () => {
    const sessionId = await env.newSession();
    const auth = env.user.auth;
    env.fake.enqueue({ text: 'Taken up later.' });
    env.fake.enqueue({ text: 'And streamed.' });

    const accepted = await request(`${env.api.url}/session/${sessionId}?async=1`, { headers: auth, json: sendBody('hello?') });
    expect(accepted.status, accepted.text).toBe(202);
    const messageId = accepted.body.messageId as string;
    expect(messageId).toMatch(/^msg_/);

    // A streamed send: its headers and its own message.created come now, its turn once a worker runs.
    const streamed = await fetch(`${env.api.url}/session/${sessionId}`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify(sendBody('and now?')),
    });
    expect(streamed.status).toBe(200);
    const stream = sseReader(streamed);
    const created = await stream.until((event) => event.type === 'message.created', 5_000);
    const streamedId = streamed.headers.get('x-message-id');
    expect(created).toMatchObject({ message: { id: streamedId, role: 'user' } });

    // The session says what it holds: not idle, and ifBusy=reject is refused from that (no worker asked).
    const read = await call<{ status: string; messages: { id: string }[] }>(`${env.api.url}/session/${sessionId}`, { headers: auth });
    expect(read.body.status).toBe('running');
    expect(read.body.messages.map((message) => message.id)).toEqual([messageId, streamedId]);
    const refused = await request(`${env.api.url}/session/${sessionId}?async=1&ifBusy=reject`, { headers: auth, json: sendBody('no') });
    expect(refused.status, refused.text).toBe(409);
    // An abort is taken too: PostgreSQL says which turn it is for (the first send's), the engine takes the signal.
    const aborted = await request(`${env.api.url}/session/${sessionId}/abort`, { headers: auth, method: 'POST' });
    expect(aborted.status, aborted.text).toBe(200);
    expect(aborted.body).toEqual({ aborted: true });

    // Nothing was lost: a worker on that queue takes both sends, in the order they were sent; the first
    // turn ends aborted as it starts, and the second runs.
    await env.restartWorker();
    await stream.until((event) => event.type === 'turn.completed', 60_000);
    await stream.close();
    const ends = ['turn.completed', 'turn.aborted', 'turn.failed'];
    const events = await env.waitForEvents(sessionId, (all) => all.filter((event) => ends.includes(event.type)).length === 2);
    expect(events.filter((event) => ends.includes(event.type)).map((event) => [event.type, 'turnId' in event && event.turnId])).toEqual([
      ['turn.aborted', messageId],
      ['turn.completed', streamedId],
    ]);
    const after = await call<{ status: string; messages: { id: string; role: string }[] }>(`${env.api.url}/session/${sessionId}`, {
      headers: auth,
    });
    expect(after.body.messages.filter((message) => message.role === 'user').map((message) => message.id)).toEqual([messageId, streamedId]);
    expect(after.body.status).toBe('idle');
  });
});

describe('Temporal cannot be reached', () => {
  let api: TestApi;
  let user: TestUser;
  let port: number;
  beforeAll(async () => {
    port = await freePort();
    api = await startTestApi({
      TEMPORAL_ADDRESS: `127.0.0.1:${port}`,
      TEMPORAL_CALL_TIMEOUT_MS: '1000',
      OPENAI_COMPATIBLE_BASE_URL: 'http://127.0.0.1:9/v1',
    });
    user = await createTestUser(api.db);
  });
  afterAll(async () => api?.close());

  async function deploy(bundle: Record<string, unknown> = {}): Promise<string> {
    const name = `down-${Math.random().toString(36).slice(2, 10)}`;
    const deployed = await call(`${api.url}/deploy`, {
      headers: user.auth,
      json: { name, model: { providerId: 'openai-compatible', modelId: 'fake-model' }, ...bundle },
    });
    expect(deployed.body, deployed.text).toMatchObject({ ok: true });
    return name;
  }

  test('a send is taken from PostgreSQL alone: 202, the message in the session, nothing of the engine shown', async () => {
    const name = await deploy();
    const session = await call<{ id: string }>(`${api.url}/agent/${name}/session`, { headers: user.auth, json: {} });
    const sent = await request(`${api.url}/session/${session.body.id}?async=1`, { headers: user.auth, json: sendBody('hi') });
    expect(sent.status, sent.text).toBe(202);
    expect(sent.text).not.toMatch(new RegExp(String(port)));
    const read = await call<{ status: string; messages: { id: string }[] }>(`${api.url}/session/${session.body.id}`, {
      headers: user.auth,
    });
    expect(read.body.messages.map((message) => message.id)).toEqual([sent.body.messageId]);
    expect(read.body.status).toBe('running');
  });

  test("the public trigger route's 503 carries none of Temporal's text", async () => {
    const name = await deploy({ triggers: [{ kind: 'webhook' }] });
    const agent = await call<{ triggers: Array<{ url: string }> }>(`${api.url}/agent/${name}`, { headers: user.auth });
    const path = agent.body.triggers[0]!.url.replace(/^https?:\/\/[^/]+/, '');
    const fired = await request(`${api.url}${path}`, { method: 'POST', json: { order: 1 } });
    expectUnavailable(fired, [new RegExp(String(port)), /workflow|temporal/i]);
  });
});

describe('PostgreSQL stalls', () => {
  test('a database that accepts connections and never answers is 503 within the connect timeout', async () => {
    // A black hole: it accepts the TCP connection and never says a word, as a stalled server does.
    const sockets = new Set<net.Socket>();
    const blackHole = net.createServer((socket) => {
      sockets.add(socket);
      socket.on('error', () => undefined);
    });
    await new Promise<void>((resolve) => blackHole.listen(0, '127.0.0.1', resolve));
    const { port } = blackHole.address() as net.AddressInfo;
    const url = new URL(inject('databaseUrl'));
    url.host = `127.0.0.1:${port}`;
    const api = await startTestApi({ DATABASE_URL: url.toString(), DATABASE_CONNECT_TIMEOUT_MS: '500' });
    try {
      const answer = await request(`${api.url}/agent`, { headers: { authorization: 'Bearer sk_00000000000000000000000000' } });
      expectUnavailable(answer, [new RegExp(String(port))]);
    } finally {
      await api.close();
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => blackHole.close(resolve));
    }
  });

  test('a statement held up past the statement timeout is 503, and the next one goes through', async () => {
    const api = await startTestApi({ DATABASE_STATEMENT_TIMEOUT_MS: '500' });
    const blocker = new pg.Client({ connectionString: inject('databaseUrl') });
    await blocker.connect();
    try {
      const user = await createTestUser(api.db);
      const put = (value: string) => request(`${api.url}/secret/STALL_TEST`, { method: 'PUT', headers: user.auth, json: { value } });
      expect((await put('first')).status).toBeLessThan(300);
      // Another transaction holds the secret's row, as a long or stuck one would.
      await blocker.query('BEGIN');
      await blocker.query("SELECT 1 FROM secrets WHERE user_id = $1 AND key = 'STALL_TEST' FOR UPDATE", [user.userId]);
      expectUnavailable(await put('second'));
      await blocker.query('ROLLBACK');
      expect((await put('third')).status).toBeLessThan(300);
    } finally {
      await blocker.end();
      await api.close();
    }
  });
});
