// Structured replies (jsonReply) over HTTP with the fake model: an invalid reply is fed back with its
// errors and tried again, each retry a reply.invalid event; a valid one carries a json part that
// message.completed, GET /session and a waiting send show; past the retries the turn fails.
import { describe, expect } from 'vitest';
import { agentTest } from '../helpers/harness/fixtures.ts';
import { call } from '../helpers/client/request.ts';
import { messageText } from '../helpers/fakes/fake-model.ts';
import { collectSse } from '../helpers/client/sse-parse.ts';
import type { MessageView, SessionEvent } from '../../contract/events.ts';

const test = agentTest();

const TRIAGE = {
  schema: {
    type: 'object',
    properties: { priority: { enum: ['low', 'high'] }, summary: { type: 'string' }, team: { type: 'string' } },
    required: ['priority', 'summary', 'team'],
    additionalProperties: false,
  },
  defaults: { team: 'support' },
};

const events = (all: SessionEvent[], type: SessionEvent['type']) => all.filter((event) => event.type === type);

describe('jsonReply', () => {
  test('invalid twice, then valid: two reply.invalid events, the errors fed back, then the json part', async ({ env }) => {
    const sessionId = await env.newSession({ jsonReply: TRIAGE });
    const before = env.fake.requests.length;
    env.fake.enqueue(
      { text: 'High priority, I think.' },
      { text: '{"priority": "urgent", "summary": "Disk full"}' },
      {
        text: '```json\n{"priority": "high", "summary": "Disk full"}\n```',
      },
    );
    const reply = await call<{ status: string; reply: string; json: unknown }>(`${env.api.url}/session/${sessionId}`, {
      headers: env.user.auth,
      json: { parts: [{ type: 'text', text: 'The disk is full' }] },
    });
    expect(reply.body).toMatchObject({ status: 'completed', json: { priority: 'high', summary: 'Disk full', team: 'support' } });

    const all = await env.events(sessionId);
    const invalid = events(all, 'reply.invalid');
    expect(invalid).toEqual([
      expect.objectContaining({ attempt: 1, errors: [expect.stringMatching(/^The reply is not JSON/)] }),
      expect.objectContaining({ attempt: 2, errors: ['/priority must be equal to one of the allowed values ("low", "high")'] }),
    ]);
    const completed = events(all, 'message.completed').at(-1) as Extract<SessionEvent, { type: 'message.completed' }>;
    expect(completed.message.parts).toContainEqual({ type: 'json', json: { priority: 'high', summary: 'Disk full', team: 'support' } });
    expect(all.at(-1)).toMatchObject({ type: 'turn.completed' });

    // The second request told the model what was wrong with the first answer.
    const second = env.fake.requests[before + 1]!.body.messages;
    expect(messageText(second.at(-1))).toMatch(/does not match the required JSON Schema[\s\S]*not JSON[\s\S]*2 attempts left/);
    // The system prompt says the format; the provider is asked for JSON too.
    expect(messageText(env.fake.requests[before]!.body.messages[0])).toContain('# Reply format');
    expect(env.fake.requests[before]!.body).toHaveProperty('response_format');

    const session = await call<{ messages: MessageView[] }>(`${env.api.url}/session/${sessionId}`, { headers: env.user.auth });
    expect(session.body.messages.at(-1)!.parts).toContainEqual({ type: 'json', json: expect.objectContaining({ priority: 'high' }) });
  });

  test('a streamed send shows each reply.invalid of its turn, in seq order with the rest', async ({ env }) => {
    const sessionId = await env.newSession({ jsonReply: TRIAGE });
    env.fake.enqueue({ text: 'Not JSON at all.' }, { text: '{"priority": "low", "summary": "Typo"}' });
    const response = await fetch(`${env.api.url}/session/${sessionId}`, {
      method: 'POST',
      headers: { ...env.user.auth, accept: 'text/event-stream', 'content-type': 'application/json' },
      body: JSON.stringify({ parts: [{ type: 'text', text: 'A typo on the home page' }] }),
    });
    expect(response.status).toBe(200);
    const streamed = (await collectSse(response, (frame) => frame.event === 'turn.completed')).map(
      (frame) => JSON.parse(frame.data) as SessionEvent,
    );
    const stored = await env.events(sessionId);
    expect(events(streamed, 'reply.invalid')).toEqual(events(stored, 'reply.invalid'));
    expect(events(streamed, 'reply.invalid')).toHaveLength(1);
    // Every event of the turn's log after the user message reached the stream, and nothing else.
    const turnStart = stored.findIndex((event) => event.type === 'turn.started');
    expect(streamed.map((event) => event.seq)).toEqual(stored.slice(turnStart - 1).map((event) => event.seq));
  });

  test('invalid three times with two retries: turn.failed naming the errors, no json part', async ({ env }) => {
    const sessionId = await env.newSession({ jsonReply: TRIAGE });
    env.fake.enqueue({ text: 'no' }, { text: 'still no' }, { text: '{"priority": "low"}' });
    const reply = await call<{ status: string; error: string }>(`${env.api.url}/session/${sessionId}`, {
      headers: env.user.auth,
      json: { parts: [{ type: 'text', text: 'triage this' }] },
    });
    expect(reply.body.status).toBe('failed');
    expect(reply.body.error).toMatch(
      /did not match jsonReply\.schema after 3 attempts: the reply is missing the required property "summary"/,
    );
    const all = await env.events(sessionId);
    expect(events(all, 'reply.invalid').map((event) => (event as { attempt: number }).attempt)).toEqual([1, 2, 3]);
    expect(all.at(-1)).toMatchObject({ type: 'turn.failed' });
    expect(JSON.stringify(all)).not.toContain('"type":"json"');
  });

  test('allowSubtasks: false offers no tools; tool calls before the reply are fine otherwise', async ({ env }) => {
    const closed = await env.newSession({ jsonReply: { ...TRIAGE, allowSubtasks: false }, mcps: ['time'] });
    const before = env.fake.requests.length;
    env.fake.enqueue({ text: '{"priority": "low", "summary": "ok"}' });
    await call(`${env.api.url}/session/${closed}`, { headers: env.user.auth, json: { parts: [{ type: 'text', text: 'go' }] } });
    expect(env.fake.requests[before]!.body.tools ?? []).toEqual([]);

    const open = await env.newSession({ jsonReply: TRIAGE, mcps: ['time'] });
    env.fake.enqueue(
      { toolCalls: [{ id: 't', name: 'current_time', arguments: {} }] },
      { text: '{"priority": "low", "summary": "checked the time"}' },
    );
    const reply = await call<{ json: unknown }>(`${env.api.url}/session/${open}`, {
      headers: env.user.auth,
      json: { parts: [{ type: 'text', text: 'go' }] },
    });
    expect(reply.body.json).toEqual({ priority: 'low', summary: 'checked the time', team: 'support' });
  });
});
