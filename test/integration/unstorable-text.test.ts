// Text PostgreSQL cannot store (U+0000 anywhere, an unpaired surrogate in jsonb) is refused where a
// client hands it in: a 400 whose `errors` point at it, for sends (async included), approvals, their
// answers and webhook trigger bodies; a link answer's note cut at its limit keeps whole characters.
// Behind that, a message that reaches the recording activity anyway fails there once, not forever:
// the signalled send is dropped and the session goes on. A model's output is not refused but kept,
// with U+FFFD for what cannot be stored.
import { randomUUID } from 'node:crypto';
import { describe, expect } from 'vitest';
import { ApplicationFailure } from '@temporalio/common';
import { textFromEvents, type AgentEnv } from '../helpers/harness/agent-env.ts';
import { agentTest } from '../helpers/harness/fixtures.ts';
import { call } from '../helpers/client/request.ts';
import { newId } from '../../lib/ids.ts';
import { getSession } from '../../store/sessions.ts';
import { signalSessionWithStart } from '../../clients/session.ts';
import { turnBookkeeping } from '../../activities/turn/bookkeeping.ts';
import { FAILURE } from '../../lib/workflow-safe/failures.ts';
import type { SessionEvent } from '../../contract/events.ts';

const test = agentTest();

interface Problem {
  status: number;
  detail: string;
  errors: Array<{ path: string; message: string }>;
}

const NUL = 'before\u0000after';
const LONE_SURROGATE = 'half of a pair: \ud800';

const userMessages = (events: SessionEvent[]) =>
  events.flatMap((event) => (event.type === 'message.created' && event.message.role === 'user' ? [event.message] : []));

const send = (env: AgentEnv, sessionId: string, text: string, query = '') =>
  call<Problem & { messageId: string }>(`${env.api.url}/session/${sessionId}${query}`, {
    headers: env.user.auth,
    json: {
      parts: [
        { type: 'text', text: 'fine' },
        { type: 'text', text },
      ],
    },
  });

describe('refused at the API', () => {
  test('a send (async or waiting) with a NUL or an unpaired surrogate is a 400 naming the part; nothing is recorded', async ({ env }) => {
    const sessionId = await env.newSession();
    for (const [text, message] of [
      [NUL, 'string must not contain the NUL character (\\u0000)'],
      [LONE_SURROGATE, 'string contains an unpaired surrogate (invalid Unicode)'],
    ] as const) {
      for (const query of ['?async=1', '']) {
        const response = await send(env, sessionId, text, query);
        expect(response.status, response.text).toBe(400);
        expect(response.headers.get('content-type')).toContain('application/problem+json');
        expect(response.body.errors).toEqual([{ path: '/parts/1/text', message }]);
      }
    }
    // The session is not held by anything: the next send runs.
    env.fake.enqueue({ text: 'All good.' });
    const ok = await send(env, sessionId, 'a normal message');
    expect(ok.status, ok.text).toBe(200);
    const events = await env.events(sessionId);
    expect(userMessages(events)).toHaveLength(1);
  });

  test('POST /approval with such a question or option, and an answer with such a note, are 400s', async ({ env }) => {
    const asked = await call<Problem>(`${env.api.url}/approval`, {
      headers: env.user.auth,
      json: { question: NUL, options: ['yes', LONE_SURROGATE] },
    });
    expect(asked.status, asked.text).toBe(400);
    expect(asked.body.errors.map((error) => error.path)).toEqual(['/question', '/options/1']);

    const created = await call<{ id: string }>(`${env.api.url}/approval`, { headers: env.user.auth, json: { question: 'Ship it?' } });
    expect(created.status, created.text).toBe(201);
    const answer = (note: string) =>
      call<Problem & { status: string }>(`${env.api.url}/approval/${created.body.id}/answer`, {
        headers: env.user.auth,
        json: { choice: 'yes', note },
      });
    const refused = await answer(NUL);
    expect(refused.status, refused.text).toBe(400);
    expect(refused.body.errors).toEqual([{ path: '/note', message: expect.stringContaining('NUL') }]);
    const accepted = await answer('fine by me');
    expect(accepted.status, accepted.text).toBe(200);
  });

  test("a link answer's note cut at its limit is cut at a whole character, never half of a surrogate pair", async ({ env }) => {
    const created = await call<{ id: string; token: string }>(`${env.api.url}/approval`, {
      headers: env.user.auth,
      json: { question: 'Deploy now?' },
    });
    expect(created.status, created.text).toBe(201);
    // 3 999 characters, then an emoji (two UTF-16 units) straddling the 4 000-unit limit.
    const note = `${'a'.repeat(3_999)}\u{1F600}`;
    const answered = await call<{ note: string }>(`${env.api.url}/approval/${created.body.token}/answer`, {
      headers: { accept: 'application/json' },
      json: { choice: 'yes', note },
    });
    expect(answered.status, answered.text).toBe(200);
    expect(answered.body.note).toBe('a'.repeat(3_999));
  });

  test('a webhook trigger body with a NUL is a 400 that says so', async ({ env }) => {
    const { name } = await env.deploy({ triggers: [{ kind: 'webhook' }] });
    const agent = await call<{ triggers: Array<{ url: string }> }>(`${env.api.url}/agent/${name}`, { headers: env.user.auth });
    const url = agent.body.triggers[0]!.url;
    const fired = await call<Problem>(url, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: `alert${NUL}` });
    expect(fired.status, fired.text).toBe(400);
    expect(fired.body.detail).toMatch(/NUL character/);
  });
});

describe('behind the API', () => {
  test('recording a message PostgreSQL refuses fails once, as a non-retryable UnstorableMessage', async ({ env }) => {
    const sessionId = await env.newSession();
    const book = turnBookkeeping({ db: env.api.db });
    for (const text of [NUL, LONE_SURROGATE]) {
      const error = await book.recordUserMessage({ sessionId, messageId: newId('msg'), parts: [{ type: 'text', text }] }).then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(error).toBeInstanceOf(ApplicationFailure);
      expect(error).toMatchObject({ nonRetryable: true, type: FAILURE.unstorableMessage });
    }
  });

  test('a signalled send the database refuses is dropped: the sends after it run, and the session is not held', async ({ env }) => {
    const sessionId = await env.newSession();
    const session = (await getSession(env.api.db, sessionId))!;
    // As the API would hand over an async send, had its check let this through.
    await signalSessionWithStart({ client: env.worker.client, taskQueue: env.env.TASK_QUEUE!, settings: env.api.config.turns }, session, {
      messageId: newId('msg'),
      parts: [{ type: 'text', text: NUL }],
      ifBusy: 'queue',
    });
    env.fake.enqueue({ text: `Reply ${randomUUID().slice(0, 8)}` });
    const ok = await send(env, sessionId, 'and now a normal one');
    expect(ok.status, ok.text).toBe(200);
    const events = await env.events(sessionId);
    expect(userMessages(events)).toHaveLength(1);
    expect(events.at(-1)).toMatchObject({ type: 'turn.completed' });
  });

  test("a model's output PostgreSQL cannot store streams and is kept with U+FFFD in its place, the same in deltas and message", async ({
    env,
  }) => {
    const sessionId = await env.newSession();
    env.fake.enqueue({ text: ['a NUL ', NUL, ' and ', LONE_SURROGATE, ' end'] });
    const sent = await send(env, sessionId, 'reply with odd text');
    expect(sent.status, sent.text).toBe(200);
    const events = await env.events(sessionId);
    const completed = events.flatMap((event) =>
      event.type === 'message.completed' && event.message.role === 'assistant' ? [event.message] : [],
    );
    expect(completed).toHaveLength(1);
    const expected = 'a NUL before\uFFFDafter and half of a pair: \uFFFD end';
    expect(completed[0]!.parts).toEqual([{ type: 'text', text: expected }]);
    expect(textFromEvents(events, completed[0]!.id)).toBe(expected);
    expect(events.at(-1)).toMatchObject({ type: 'turn.completed' });
  });
});
