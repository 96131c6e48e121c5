// What one tenant can make a worker hold, through the HTTP API: a model step's output is capped
// (MODEL_STEP_MAX_OUTPUT_BYTES / _TOKENS: the turn fails at once, with no retry), the files a
// conversation sends its model are capped at send time (TURN_FILE_BYTES_LIMIT: 400), and a turn
// with tool round trips the service runs reads each file once, not once per step, while a step that
// waits on a person (ask_my_user) keeps none of them.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect } from 'vitest';
import { textFromEvents, type AgentEnv } from '../helpers/harness/agent-env.ts';
import { agentTest } from '../helpers/harness/fixtures.ts';
import { call } from '../helpers/client/request.ts';
import { messageText } from '../helpers/fakes/fake-model.ts';

const MAX_BYTES = 4096;
const MAX_TOKENS = 200;
const FILE_LIMIT = 3000;

const test = agentTest(
  {
    MODEL_STEP_MAX_OUTPUT_BYTES: String(MAX_BYTES),
    MODEL_STEP_MAX_OUTPUT_TOKENS: String(MAX_TOKENS),
    TURN_FILE_BYTES_LIMIT: String(FILE_LIMIT),
  },
  { ownDataDir: true },
);
test.beforeEach(({ env }) => env.fake.reset());

interface TurnReply {
  status: string;
  reply: string;
  error?: string;
  detail?: string;
  errors?: { path: string; message: string }[];
}

const send = (env: AgentEnv, sessionId: string, parts: unknown[]) =>
  call<TurnReply>(`${env.api.url}/session/${sessionId}`, { headers: env.user.auth, json: { parts } });

async function upload(env: AgentEnv, sessionId: string, filename: string, type: string, data: Buffer | string): Promise<string> {
  const form = new FormData();
  form.append('file', new Blob([data], { type }), filename);
  const response = await fetch(`${env.api.url}/session/${sessionId}/upload`, { method: 'POST', headers: env.user.auth, body: form });
  const body = (await response.json()) as { url: string };
  expect(response.status).toBe(201);
  return body.url;
}

describe('model output per step', () => {
  test('a model that streams without end: stopped at MODEL_STEP_MAX_OUTPUT_BYTES, the turn fails after one attempt', async ({ env }) => {
    const sessionId = await env.newSession();
    // Every request streams forever: a retried step would show up as a second request.
    env.fake.setHandler(() => ({ text: ['x'.repeat(500)], endless: true, chunkDelayMs: 1 }));
    const response = await send(env, sessionId, [{ type: 'text', text: 'talk forever' }]);
    expect(response.status).toBe(200);
    expect(response.body.status).toBe('failed');
    expect(response.body.error).toMatch(/MODEL_STEP_MAX_OUTPUT_BYTES/);
    expect(response.body.error).toContain(String(MAX_BYTES));

    const events = await env.events(sessionId);
    expect(events.filter((event) => event.type === 'step.retry')).toEqual([]);
    expect(events.at(-1)).toMatchObject({ type: 'turn.failed', error: expect.stringMatching(/MODEL_STEP_MAX_OUTPUT_BYTES/) });
    // The stream was cut off (the connection closed), and the text kept stays within the limit.
    await env.fake.waitForDisconnects(1);
    expect(env.fake.requests).toHaveLength(1);
    const [assistantId] = events.flatMap((event) =>
      event.type === 'message.created' && event.message.role === 'assistant' ? [event.message.id] : [],
    );
    const text = textFromEvents(events, assistantId!);
    expect(text.length).toBeGreaterThan(0);
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(MAX_BYTES);
  });

  test('small pieces without end: stopped at MODEL_STEP_MAX_OUTPUT_TOKENS, which is also sent to the provider', async ({ env }) => {
    const sessionId = await env.newSession();
    env.fake.setHandler(() => ({ text: ['word '], endless: true, chunkDelayMs: 1 }));
    const response = await send(env, sessionId, [{ type: 'text', text: 'count words' }]);
    expect(response.body.status).toBe('failed');
    expect(response.body.error).toMatch(/MODEL_STEP_MAX_OUTPUT_TOKENS/);
    expect(response.body.error).toContain(String(MAX_TOKENS));
    expect(env.fake.requests).toHaveLength(1);
    expect(env.fake.requests[0]!.body.max_tokens).toBe(MAX_TOKENS);
  });

  test('a reply within the limits completes as before', async ({ env }) => {
    const sessionId = await env.newSession();
    env.fake.enqueue({ text: 'A short answer.' });
    const response = await send(env, sessionId, [{ type: 'text', text: 'hello' }]);
    expect(response.body).toMatchObject({ status: 'completed', reply: 'A short answer.' });
  });
});

describe('files per turn', () => {
  const text = (size: number, fill: string) => fill.repeat(size);

  test('a send taking the files of the conversation past TURN_FILE_BYTES_LIMIT is a 400; a file sent again counts once', async ({
    env,
  }) => {
    const sessionId = await env.newSession();
    const a = await upload(env, sessionId, 'a.txt', 'text/plain', text(2000, 'a'));
    const b = await upload(env, sessionId, 'b.txt', 'text/plain', text(2000, 'b'));

    expect(
      (
        await send(env, sessionId, [
          { type: 'text', text: 'read a' },
          { type: 'file', url: a },
        ])
      ).body.status,
    ).toBe('completed');
    const eventsBefore = (await env.events(sessionId)).length;
    const requestsBefore = env.fake.requests.length;

    const refused = await send(env, sessionId, [
      { type: 'text', text: 'read b too' },
      { type: 'file', url: b },
    ]);
    expect(refused.status).toBe(400);
    expect(refused.headers.get('content-type')).toContain('application/problem+json');
    expect(refused.body.detail).toMatch(/TURN_FILE_BYTES_LIMIT/);
    expect(refused.body.detail).toContain('4000 bytes');
    expect(refused.body.errors).toEqual([{ path: '/parts', message: expect.stringContaining(String(FILE_LIMIT)) }]);
    // Nothing was recorded and no turn ran.
    expect(await env.events(sessionId)).toHaveLength(eventsBefore);
    expect(env.fake.requests).toHaveLength(requestsBefore);

    // The file already in the conversation is not counted twice; a send without files is never refused.
    expect(
      (
        await send(env, sessionId, [
          { type: 'text', text: 'a again' },
          { type: 'file', url: a },
        ])
      ).body.status,
    ).toBe('completed');
    expect((await send(env, sessionId, [{ type: 'text', text: 'just text' }])).body.status).toBe('completed');
  });

  test('two files over the limit in one send are a 400 too', async ({ env }) => {
    const sessionId = await env.newSession();
    const a = await upload(env, sessionId, 'a.txt', 'text/plain', text(1600, 'a'));
    const b = await upload(env, sessionId, 'b.txt', 'text/plain', text(1600, 'b'));
    const refused = await send(env, sessionId, [
      { type: 'file', url: a },
      { type: 'file', url: b },
    ]);
    expect(refused.status).toBe(400);
    expect(refused.body.detail).toMatch(/TURN_FILE_BYTES_LIMIT/);
  });

  test('a turn with a tool round trip reads each file once: the second step sends the file it read in the first', async ({ env }) => {
    const sessionId = await env.newSession({ mcps: ['time'] });
    const note = 'The code word is pelican.';
    const url = await upload(env, sessionId, 'note.txt', 'text/plain', note);
    const { rows } = await env.api.db.query<{ object_key: string }>('SELECT object_key FROM media WHERE session_id = $1 AND key = $2', [
      sessionId,
      url,
    ]);
    const stored = path.join(env.api.config.dataDir, 'media', rows[0]!.object_key);
    expect(fs.existsSync(stored)).toBe(true);

    env.fake.setHandler((request) => {
      if (request.index === 0) {
        // The first step has read the file; from here a read from storage would find nothing.
        fs.rmSync(stored);
        return { toolCalls: [{ id: 'call_1', name: 'current_time', arguments: { timezone: 'UTC' } }] };
      }
      return { text: 'The word is pelican.' };
    });
    const response = await send(env, sessionId, [
      { type: 'text', text: 'What is the code word, and the time?' },
      { type: 'file', url },
    ]);
    expect(response.body).toMatchObject({ status: 'completed', reply: 'The word is pelican.' });
    expect(env.fake.requests).toHaveLength(2);
    for (const request of env.fake.requests) {
      const user = request.body.messages.find((message) => message.role === 'user');
      expect(messageText(user)).toContain(note);
    }
  });

  test('a step that asks the user keeps nothing: the turn resumed after the answer reads its files again', async ({ env }) => {
    const sessionId = await env.newSession();
    const note = 'The code word is heron.';
    const url = await upload(env, sessionId, 'note.txt', 'text/plain', note);
    const { rows } = await env.api.db.query<{ object_key: string }>('SELECT object_key FROM media WHERE session_id = $1 AND key = $2', [
      sessionId,
      url,
    ]);
    const stored = path.join(env.api.config.dataDir, 'media', rows[0]!.object_key);

    env.fake.setHandler((request) => {
      if (request.index === 0) {
        // Gone from storage once the first step has read it: a later step sees it only if it was kept.
        fs.rmSync(stored);
        return { toolCalls: [{ id: 'call_ask', name: 'ask_my_user', arguments: { question: 'May I say the code word?' } }] };
      }
      return { text: 'I may not read it any more.' };
    });
    const sent = await call(`${env.api.url}/session/${sessionId}?async=1`, {
      headers: env.user.auth,
      json: {
        parts: [
          { type: 'text', text: 'What is the code word? Ask me first.' },
          { type: 'file', url },
        ],
      },
    });
    expect(sent.status).toBe(202);
    const asked = await env.waitForEvents(sessionId, (events) => events.some((event) => event.type === 'approval.requested'));
    const requested = asked.find((event) => event.type === 'approval.requested');
    if (requested?.type !== 'approval.requested') throw new Error('no approval.requested');
    const answered = await call(`${env.api.url}/approval/${requested.approvalId}/answer`, {
      headers: env.user.auth,
      json: { choice: 'yes' },
    });
    expect(answered.status).toBe(200);
    const events = await env.waitForEvents(sessionId, (all) => all.some((event) => event.type === 'turn.completed'));
    expect(events.filter((event) => event.type === 'turn.failed')).toEqual([]);

    expect(env.fake.requests).toHaveLength(2);
    const userText = (index: number) => messageText(env.fake.requests[index]!.body.messages.find((message) => message.role === 'user'));
    expect(userText(0)).toContain(note);
    // The resumed step read the conversation's files from storage again, finding the file gone.
    expect(userText(1)).toContain('[file: note.txt]');
    expect(userText(1)).not.toContain(note);
  });
});
