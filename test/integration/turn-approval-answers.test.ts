// A turn that asks its user, as the request that started it sees it: a streamed send or regenerate
// carries the question, its answer (or expiry) and the rest of the turn in the same stream, kept open
// by heartbeats meanwhile; a waiting send or regenerate answers at once with what the turn waits for.
import { describe, expect } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { AgentEnv } from '../helpers/harness/agent-env.ts';
import { agentTest } from '../helpers/harness/fixtures.ts';
import { call } from '../helpers/client/request.ts';
import { sseReader, type SseReader } from '../helpers/client/sse-reader.ts';
import type { SessionEvent } from '../../contract/events.ts';

const test = agentTest({ SSE_HEARTBEAT_MS: '200' });
// A test that fails leaves its scripts behind; the next one starts from an empty queue.
test.beforeEach(({ env }) => env.fake.reset());

const ask = (id: string, input: Record<string, unknown>) => ({ toolCalls: [{ id, name: 'ask_my_user', arguments: input }] });
const goBody = (text = 'Go') => ({ parts: [{ type: 'text', text }] });

async function streamed(env: AgentEnv, path: string, body: unknown): Promise<SseReader> {
  const response = await fetch(`${env.api.url}${path}`, {
    method: 'POST',
    headers: { ...env.user.auth, accept: 'text/event-stream', 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
  return sseReader(response);
}

/** A waiting request, bounded so that one that holds its connection fails instead of hanging the test. */
async function waiting<T = Record<string, unknown>>(env: AgentEnv, path: string, body: unknown): Promise<{ status: number; body: T }> {
  const response = await fetch(`${env.api.url}${path}`, {
    method: 'POST',
    headers: { ...env.user.auth, 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(20_000),
  });
  return { status: response.status, body: (await response.json()) as T };
}

type OpenApi = { paths: Record<string, Record<string, { responses: Record<string, { content: Record<string, { schema: object }> }> }>> };

/** Checks a 200 answer against what /openapi.json documents for that route, so the document cannot drift. */
async function expectDocumented(env: AgentEnv, path: string, body: unknown): Promise<void> {
  const document = (await call<OpenApi>(`${env.api.url}/openapi.json`)).body;
  const validate = new Ajv2020({ strict: false }).compile(
    document.paths[path]!.post!.responses['200']!.content['application/json']!.schema,
  );
  expect(validate(body), JSON.stringify(validate.errors)).toBe(true);
}

const answer = (env: AgentEnv, approvalId: string, choice: string) =>
  call(`${env.api.url}/approval/${approvalId}/answer`, { headers: env.user.auth, json: { choice } });

const types = (events: SessionEvent[]) => events.map((event) => event.type);
/** After an answer, a turn's stream goes on with these (deltas aside) and ends. */
const RESUMED_TURN = ['approval.answered', 'message.created', 'tool.result', 'message.created', 'message.completed', 'turn.completed'];
const isType =
  <T extends SessionEvent['type']>(type: T) =>
  (event: SessionEvent): event is Extract<SessionEvent, { type: T }> =>
    event.type === type;

/** After the stream showed approval.requested, a heartbeat comment comes before anything else does. */
async function heartbeatWhileWaiting(stream: SseReader): Promise<void> {
  const asked = stream.raw.lastIndexOf('event: approval.requested');
  expect(asked).toBeGreaterThan(-1);
  await stream.rawUntil(asked, (text) => /\n\n: keep-alive\n\n/.test(text));
}

describe('a streamed send whose agent asks its user', () => {
  test('shows the question, keeps the stream open, and after the answer the rest of the turn, then ends', async ({ env }) => {
    const sessionId = await env.newSession();
    env.fake.enqueue(ask('call_ship', { question: 'Ship v2 now?', options: ['ship', 'wait'] }), { text: 'Shipped v2.' });
    const stream = await streamed(env, `/session/${sessionId}`, goBody());

    const requested = await stream.until(isType('approval.requested'));
    expect(requested).toMatchObject({ question: 'Ship v2 now?', options: ['ship', 'wait'], source: 'tool', toolCallId: 'call_ship' });
    expect(types(stream.events).filter((type) => type !== 'message.part.delta')).toEqual([
      'message.created',
      'turn.started',
      'message.created',
      'message.completed',
      'tool.call',
      'approval.requested',
    ]);
    await heartbeatWhileWaiting(stream);

    const approvalId = (requested as { approvalId: string }).approvalId;
    expect((await answer(env, approvalId, 'ship')).status).toBe(200);
    const rest = await stream.toEnd();
    expect(types(rest).filter((type) => type !== 'message.part.delta')).toEqual(RESUMED_TURN);
    expect(rest[0]).toMatchObject({ approvalId, choice: 'ship' });
    expect(rest[2]).toMatchObject({ toolCallId: 'call_ship', output: { choice: 'ship' } });
    expect(rest.find(isType('message.completed'))?.message.parts).toEqual([{ type: 'text', text: 'Shipped v2.' }]);
  });

  test('an expired question shows approval.expired, then the rest of the turn', async ({ env }) => {
    const sessionId = await env.newSession();
    env.fake.enqueue(ask('call_refund', { question: 'Refund 20 EUR?', expiresInMs: 1500 }), { text: 'I did not refund.' });
    const stream = await streamed(env, `/session/${sessionId}`, goBody());
    const requested = await stream.until(isType('approval.requested'));
    const rest = (await stream.toEnd()).filter((event) => event.type !== 'message.part.delta');
    expect(types(rest)).toEqual([
      'approval.expired',
      'message.created',
      'tool.result',
      'message.created',
      'message.completed',
      'turn.completed',
    ]);
    expect(rest[0]).toMatchObject({ approvalId: (requested as { approvalId: string }).approvalId });
    expect(rest[2]).toMatchObject({ toolCallId: 'call_refund', output: { status: 'expired' } });
  });

  test("approvals of other turns and of the API stay out of a turn's stream", async ({ env }) => {
    const sessionId = await env.newSession();
    // The first turn asks twice; the second send is queued behind it meanwhile.
    env.fake.enqueue(
      ask('call_one', { question: 'First question?' }),
      ask('call_two', { question: 'Second question?' }),
      { text: 'First turn done.' },
      { text: 'Second turn done.' },
    );
    const first = await streamed(env, `/session/${sessionId}`, goBody('first'));
    const one = await first.until(isType('approval.requested'));
    const second = await streamed(env, `/session/${sessionId}`, goBody('second'));
    await second.until((event) => event.type === 'message.created' && event.message.role === 'user');
    // An approval asked through the API for this session: in the session's log, in no turn's stream.
    const apiApproval = await call<{ id: string }>(`${env.api.url}/approval`, {
      headers: env.user.auth,
      json: { question: 'Unrelated?', sessionId, expiresInMs: 60_000 },
    });
    expect(apiApproval.status).toBe(201);
    expect((await answer(env, apiApproval.body.id, 'yes')).status).toBe(200);

    expect((await answer(env, (one as { approvalId: string }).approvalId, 'yes')).status).toBe(200);
    const two = await first.until(isType('approval.requested'));
    expect(two).toMatchObject({ question: 'Second question?' });
    expect((await answer(env, (two as { approvalId: string }).approvalId, 'no')).status).toBe(200);
    await first.toEnd();
    await second.toEnd();

    const log = await env.events(sessionId);
    const apiEvents = log.filter((event) => 'approvalId' in event && event.approvalId === apiApproval.body.id);
    expect(types(apiEvents)).toEqual(['approval.requested', 'approval.answered']);
    const ours = new Set([one, two].map((event) => (event as { approvalId: string }).approvalId));
    const approvalsIn = (events: SessionEvent[]) => events.filter((event) => event.type.startsWith('approval.'));
    expect(approvalsIn(first.events).map((event) => `${event.type} ${(event as { approvalId: string }).approvalId}`)).toEqual(
      [...ours].flatMap((id) => [`approval.requested ${id}`, `approval.answered ${id}`]),
    );
    expect(first.events.filter(isType('tool.result')).map((event) => event.toolCallId)).toEqual(['call_one', 'call_two']);
    expect(approvalsIn(second.events)).toEqual([]);
    expect(types(second.events).filter((type) => type !== 'message.part.delta')).toEqual([
      'message.created',
      'turn.started',
      'message.created',
      'message.completed',
      'turn.completed',
    ]);
  });
});

describe('a waiting send whose agent asks its user', () => {
  test('answers 200 at once with what the turn waits for; the reply comes once answered', async ({ env }) => {
    const sessionId = await env.newSession();
    env.fake.enqueue(ask('call_pay', { question: 'Pay invoice 7?', options: ['pay', 'hold'], expiresInMs: 600_000 }), {
      text: 'Paid.',
    });
    const sent = await waiting<{ messageId: string; status: string; waitingFor: { approvalId: string } }>(
      env,
      `/session/${sessionId}`,
      goBody(),
    );
    expect(sent.status).toBe(200);
    expect(sent.body).toEqual({
      messageId: expect.stringMatching(/^msg_/),
      status: 'waiting',
      waitingFor: {
        kind: 'approval',
        approvalId: expect.any(String),
        question: 'Pay invoice 7?',
        options: ['pay', 'hold'],
        expiresAt: expect.any(String),
      },
    });
    const approval = await call<{ status: string; expiresAt: string }>(`${env.api.url}/approval/${sent.body.waitingFor.approvalId}`, {
      headers: env.user.auth,
    });
    expect(approval.body.status).toBe('unanswered');
    expect(sent.body.waitingFor).toMatchObject({ expiresAt: approval.body.expiresAt });
    await expectDocumented(env, '/session/{id}', sent.body);
    expect((await call<{ status: string }>(`${env.api.url}/session/${sessionId}`, { headers: env.user.auth })).body.status).toBe('waiting');

    expect((await answer(env, sent.body.waitingFor.approvalId, 'pay')).status).toBe(200);
    await env.waitForEvents(sessionId, (events) => events.some((event) => event.type === 'turn.completed'));
    const session = await call<{ status: string; messages: Array<{ role: string; parts: unknown[] }> }>(
      `${env.api.url}/session/${sessionId}`,
      { headers: env.user.auth },
    );
    expect(session.body.status).toBe('idle');
    expect(session.body.messages.at(-1)).toMatchObject({ role: 'assistant', parts: [{ type: 'text', text: 'Paid.' }] });
  });

  test('a waiting regenerate answers the same way, with its turn id', async ({ env }) => {
    const sessionId = await env.newSession();
    env.fake.enqueue({ text: 'First reply.' });
    const first = await waiting<{ replyMessageId: string; messageId: string }>(env, `/session/${sessionId}`, goBody());
    expect(first.status).toBe(200);
    env.fake.enqueue(ask('call_again', { question: 'Try again?' }), { text: 'Second reply.' });
    const regenerated = await waiting<{ turnId: string; waitingFor: { approvalId: string } }>(env, `/session/${sessionId}/regenerate`, {
      assistantMessageId: first.body.replyMessageId,
    });
    expect(regenerated.status).toBe(200);
    expect(regenerated.body).toMatchObject({
      messageId: first.body.messageId,
      turnId: expect.stringMatching(/^trn_/),
      reverted: [first.body.replyMessageId],
      status: 'waiting',
      waitingFor: { kind: 'approval', question: 'Try again?', options: ['yes', 'no'] },
    });
    await expectDocumented(env, '/session/{id}', first.body);
    await expectDocumented(env, '/session/{id}/regenerate', regenerated.body);
    expect((await answer(env, regenerated.body.waitingFor.approvalId, 'yes')).status).toBe(200);
    await env.waitForEvents(sessionId, (events) =>
      events.some((event) => event.type === 'turn.completed' && event.turnId === regenerated.body.turnId),
    );
  });
});

test('a streamed regenerate whose agent asks its user shows the question, the answer and the rest of the turn', async ({ env }) => {
  const sessionId = await env.newSession();
  env.fake.enqueue({ text: 'First reply.' });
  const first = await waiting<{ replyMessageId: string }>(env, `/session/${sessionId}`, goBody());
  env.fake.enqueue(ask('call_regen', { question: 'Regenerate with care?' }), { text: 'Careful reply.' });
  const stream = await streamed(env, `/session/${sessionId}/regenerate`, { assistantMessageId: first.body.replyMessageId });
  const requested = await stream.until(isType('approval.requested'));
  const started = stream.events.find(isType('turn.started'));
  expect(requested).toMatchObject({ question: 'Regenerate with care?', turnId: started?.turnId });
  await heartbeatWhileWaiting(stream);
  expect((await answer(env, (requested as { approvalId: string }).approvalId, 'yes')).status).toBe(200);
  const rest = (await stream.toEnd()).filter((event) => event.type !== 'message.part.delta');
  expect(types(rest)).toEqual(RESUMED_TURN);
  expect(rest.at(-1)).toMatchObject({ turnId: started?.turnId });
});
