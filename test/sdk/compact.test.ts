// client.sessions.compact against the real service (fake model): a conversation of several turns is
// summarised up to its last turn and the summary stored as a `summary` message; a single turn has
// nothing to compact; a turn running refuses it with a ConflictError.
import { describe, expect } from 'vitest';
import { agentTest } from '../helpers/harness/fixtures.ts';
import type { AgentEnv } from '../helpers/harness/agent-env.ts';
import { messageText } from '../helpers/fakes/fake-model.ts';
import { Client, ConflictError } from '../../sdk/src/index.ts';
import { filler, isSummarising } from '../helpers/fakes/compaction-requests.ts';

/** The roles of `count` turns of a question and its answer. */
const turnsOf = (count: number) => Array.from({ length: count }, () => ['user', 'assistant']).flat();

const test = agentTest();

const SUMMARY = 'SUMMARY: the user asked three numbered questions about lorem ipsum.';

const compactedEvents = async (env: AgentEnv, sessionId: string) =>
  (await env.events(sessionId)).filter((event) => event.type === 'session.compacted');

describe('sessions.compact', () => {
  test('summarises the turns before the last into a `summary` message', async ({ env }) => {
    env.fake.setHandler((request) => (isSummarising(request) ? { text: SUMMARY } : { text: filler('answer', 30) }));
    const client = new Client({ baseUrl: env.api.url, apiKey: env.user.apiKey });
    // Four turns: the first three are summarised, the last is kept whole.
    const sessionId = await env.newSession();
    for (let index = 1; index <= 4; index++) {
      expect(await client.sessions.sendAndWait(sessionId, `question-${index} ${filler(`q${index}`, 30)}`)).toMatchObject({
        status: 'completed',
      });
    }
    const before = (await client.sessions.retrieve(sessionId)).messages;
    expect(before.map((message) => message.role)).toEqual(turnsOf(4));
    const summarisingBefore = env.fake.requests.filter(isSummarising).length;

    const compacted = await client.sessions.compact(sessionId);
    expect(compacted).toMatchObject({
      compacted: true,
      summaryMessageId: expect.stringMatching(/^msg_/),
      // The third reply: the last message before the last turn.
      throughMessageId: before[5]!.id,
    });
    expect(compacted.tokensAfter).toBeGreaterThan(0);
    expect(compacted.tokensBefore).toBeGreaterThan(compacted.tokensAfter);
    expect(compacted.usage?.inputTokens).toBeGreaterThan(0);
    // One summarising request, that read the first three questions and not the fourth.
    const summarising = env.fake.requests.filter(isSummarising).slice(summarisingBefore);
    expect(summarising).toHaveLength(1);
    const read = summarising[0]!.body.messages.map((message) => messageText(message) ?? '').join('\n');
    expect(read).toContain('question-3');
    expect(read).not.toContain('question-4');

    // The summary is stored as a message of role `summary`; nothing else changed.
    const after = (await client.sessions.retrieve(sessionId)).messages;
    expect(after.filter((message) => message.role !== 'summary')).toEqual(before);
    const summary = after.find((message) => message.id === compacted.summaryMessageId);
    expect(summary).toMatchObject({ role: 'summary', status: 'complete' });
    expect(summary!.parts).toEqual([
      {
        type: 'compaction',
        throughMessageId: compacted.throughMessageId,
        tokensBefore: compacted.tokensBefore,
        tokensAfter: compacted.tokensAfter,
      },
      { type: 'text', text: SUMMARY },
    ]);
    expect(await compactedEvents(env, sessionId)).toEqual([
      expect.objectContaining({
        reason: 'requested',
        summaryMessageId: compacted.summaryMessageId,
        throughMessageId: compacted.throughMessageId,
        tokensBefore: compacted.tokensBefore,
        tokensAfter: compacted.tokensAfter,
      }),
    ]);
  });

  test('a session of one turn has nothing to compact: `compacted: false`, and no model call', async ({ env }) => {
    env.fake.setHandler((request) => (isSummarising(request) ? { text: SUMMARY } : { text: filler('answer', 30) }));
    const client = new Client({ baseUrl: env.api.url, apiKey: env.user.apiKey });
    const sessionId = await env.newSession();
    await client.sessions.sendAndWait(sessionId, `question-1 ${filler('q1', 30)}`);
    const requestsBefore = env.fake.requests.length;
    const nothing = await client.sessions.compact(sessionId);
    expect(nothing).toMatchObject({ compacted: false });
    expect(nothing.summaryMessageId).toBeUndefined();
    expect(nothing.tokensBefore).toBeGreaterThan(0);
    expect(nothing.tokensAfter).toBe(nothing.tokensBefore);
    expect(env.fake.requests.length).toBe(requestsBefore);
    expect((await client.sessions.retrieve(sessionId)).messages.map((message) => message.role)).toEqual(['user', 'assistant']);
    expect(await compactedEvents(env, sessionId)).toEqual([]);
  });

  test('while a turn runs it is a ConflictError (409), and nothing is compacted', async ({ env }) => {
    env.fake.setHandler((request) => (isSummarising(request) ? { text: SUMMARY } : { text: filler('answer', 30) }));
    const client = new Client({ baseUrl: env.api.url, apiKey: env.user.apiKey });
    const sessionId = await env.newSession();
    for (let index = 1; index <= 2; index++) await client.sessions.sendAndWait(sessionId, `question-${index} ${filler(`q${index}`, 30)}`);
    const summarisingBefore = env.fake.requests.filter(isSummarising).length;

    let release!: () => void;
    env.fake.enqueue({ text: 'slow answer', holdUntil: new Promise<void>((resolve) => (release = resolve)) });
    const asked = env.fake.requests.length;
    await client.sessions.sendAsync(sessionId, 'question-3 wait for it');
    await env.fake.waitForRequests(asked + 1);
    const refused = await client.sessions.compact(sessionId).catch((caught: unknown) => caught);
    release();
    expect(refused).toBeInstanceOf(ConflictError);
    expect((refused as ConflictError).status).toBe(409);
    await env.waitForEvents(sessionId, (events) => events.filter((event) => event.type === 'turn.completed').length === 3);
    expect(await compactedEvents(env, sessionId)).toEqual([]);
    expect(env.fake.requests.filter(isSummarising).length).toBe(summarisingBefore);
    expect((await client.sessions.retrieve(sessionId)).messages.map((message) => message.role)).toEqual(turnsOf(3));

    // Once the turn has ended, the same call compacts.
    expect(await client.sessions.compact(sessionId)).toMatchObject({ compacted: true });
  });
});
