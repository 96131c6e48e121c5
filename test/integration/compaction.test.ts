// A session that outgrows its model's context window keeps working. The fake model plays a model with a
// small window: a request past it is refused with OpenAI's real context-length error. The service does
// not know that window at first (an openai-compatible model gets MODEL_CONTEXT_WINDOW_DEFAULT), so the
// first refusal compacts the conversation and tries the step again, and the window it named is believed
// from then on: later turns compact before they are refused. Nothing stored is changed: the session
// lists every message, and a revert to before a compaction sends the model the whole conversation again.
import { describe, expect } from 'vitest';
import { agentTest } from '../helpers/harness/fixtures.ts';
import type { AgentEnv } from '../helpers/harness/agent-env.ts';
import { call } from '../helpers/client/request.ts';
import { messageText } from '../helpers/fakes/fake-model.ts';
import { promptTokens } from '../helpers/fakes/scripted-server.ts';
import type { MessageView, SessionEvent } from '../../contract/events.ts';
import { filler, isSummarising } from '../helpers/fakes/compaction-requests.ts';

const WINDOW = 4_000;
const test = agentTest({ TOOL_RESULT_MAX_CHARS: '2000' });

/** The fake answers every turn at length, and a summarising request with a summary naming what it read. */
function answerAtLength(env: AgentEnv): void {
  env.fake.setContextWindow(WINDOW);
  env.fake.setHandler((request) => {
    if (isSummarising(request)) {
      const read = request.body.messages.map((message) => messageText(message) ?? '').join(' ');
      const turns = [...new Set(read.match(/question-\d+/g) ?? [])];
      return { text: `SUMMARY of ${turns.join(', ')}: the user asked numbered questions.` };
    }
    return { text: filler('answer') };
  });
}

interface Reply {
  status: string;
  reply?: string;
  messageId: string;
}

async function ask(env: AgentEnv, sessionId: string, index: number) {
  const response = await call<Reply>(`${env.api.url}/session/${sessionId}`, {
    headers: env.user.auth,
    json: { parts: [{ type: 'text', text: `question-${index} ${filler(`q${index}`)}` }] },
  });
  expect(response.status, response.text).toBe(200);
  expect(response.body.status).toBe('completed');
  return response.body;
}

const compactions = (events: SessionEvent[]) =>
  events.filter((event): event is Extract<SessionEvent, { type: 'session.compacted' }> => event.type === 'session.compacted');

async function messagesOf(env: AgentEnv, sessionId: string): Promise<MessageView[]> {
  const session = await call<{ messages: MessageView[] }>(`${env.api.url}/session/${sessionId}`, { headers: env.user.auth });
  return session.body.messages;
}

/** The requests of turns (not summarising ones) from `from` on. */
const turnRequests = (env: AgentEnv, from = 0) => env.fake.requests.slice(from).filter((request) => !isSummarising(request));

describe("a conversation past its model's window", () => {
  test('every turn completes: the first refusal compacts and retries, later turns compact before the window', async ({ env }) => {
    answerAtLength(env);
    const sessionId = await env.newSession();
    for (let index = 1; index <= 14; index++) await ask(env, sessionId, index);

    const events = await env.events(sessionId);
    const compacted = compactions(events);
    expect(compacted.length).toBeGreaterThanOrEqual(2);
    // Unknown at first, the window is learned from the provider's refusal; the later ones come before it.
    expect(compacted[0]!.reason).toBe('context-length');
    expect(compacted.slice(1).every((event) => event.reason === 'threshold')).toBe(true);
    for (const event of compacted) expect(event.tokensAfter).toBeLessThan(event.tokensBefore);
    const refused = env.fake.requests.filter((request) => request.script?.status === 400);
    expect(refused).toHaveLength(1);
    // Every request after the first refusal stays within the window.
    const afterRefusal = env.fake.requests.slice(refused[0]!.index + 1);
    for (const request of afterRefusal) expect(promptTokens(request.body.messages)).toBeLessThanOrEqual(WINDOW);
    // Fourteen turns completed, each with its answer.
    expect(events.filter((event) => event.type === 'turn.completed')).toHaveLength(14);
    expect(events.filter((event) => event.type === 'turn.failed')).toHaveLength(0);

    // The stored conversation keeps everything: 14 questions, 14 answers, the summaries beside them.
    const messages = await messagesOf(env, sessionId);
    expect(messages.filter((message) => message.role === 'user')).toHaveLength(14);
    expect(messages.filter((message) => message.role === 'assistant')).toHaveLength(14);
    const summaries = messages.filter((message) => message.role === 'summary');
    expect(summaries.map((message) => message.id)).toEqual(compacted.map((event) => event.summaryMessageId));
    expect(summaries[0]!.parts[0]).toMatchObject({ type: 'compaction', throughMessageId: compacted[0]!.throughMessageId });
    // A summary is billed like a reply.
    expect(summaries.every((message) => (message.usage?.inputTokens ?? 0) > 0)).toBe(true);

    // The model's last request: the latest summary first, then recent turns; the first question is gone.
    const last = turnRequests(env).at(-1)!;
    const sent = last.body.messages.map((message) => messageText(message) ?? '').join('\n');
    expect(sent).toContain('SUMMARY of');
    expect(sent).toContain('question-14');
    expect(sent).not.toContain('question-1 ');
    // A summary of summaries still names the first questions.
    expect(sent).toMatch(/SUMMARY of [^\n]*question-1\b/);
  });

  test('a revert to before the compaction sends the whole conversation again; a fork keeps the summary', async ({ env }) => {
    answerAtLength(env);
    const sessionId = await env.newSession();
    const asked: Reply[] = [];
    for (let index = 1; index <= 9; index++) asked.push(await ask(env, sessionId, index));
    const [first] = compactions(await env.events(sessionId));
    expect(first).toBeDefined();

    // A fork copies the summary; its next turn is sent the summary, not the first questions.
    const fork = await call<{ id: string }>(`${env.api.url}/session/${sessionId}/fork`, { headers: env.user.auth, json: {} });
    expect(fork.status).toBe(201);
    const forkMessages = await messagesOf(env, fork.body.id);
    const copied = forkMessages.find((message) => message.role === 'summary')!;
    const through = copied.parts.find((part) => part.type === 'compaction');
    expect(forkMessages.map((message) => message.id)).toContain(through?.type === 'compaction' ? through.throughMessageId : 'none');
    const beforeFork = env.fake.requests.length;
    await ask(env, fork.body.id, 10);
    const forkSent = turnRequests(env, beforeFork)[0]!
      .body.messages.map((message) => messageText(message) ?? '')
      .join('\n');
    expect(forkSent).toContain('SUMMARY of');
    expect(forkSent).not.toContain('question-1 ');

    // Revert the second question: the compaction (after it) leaves with it, and the model reads the
    // first question again, as if nothing had ever been compacted.
    const revert = await call<{ reverted: string[] }>(`${env.api.url}/session/${sessionId}/revert`, {
      headers: env.user.auth,
      json: { messageId: asked[1]!.messageId },
    });
    expect(revert.status, revert.text).toBe(200);
    expect(revert.body.reverted).toContain(first!.summaryMessageId);
    const beforeRevert = env.fake.requests.length;
    await ask(env, sessionId, 20);
    const revertSent = turnRequests(env, beforeRevert)[0]!
      .body.messages.map((message) => messageText(message) ?? '')
      .join('\n');
    expect(revertSent).not.toContain('SUMMARY of');
    expect(revertSent).toContain('question-1 ');
    expect(revertSent).toContain('question-20');
  });

  test('POST /session/<id>/compact compacts between turns, says when there is nothing to compact, refuses while a turn runs', async ({
    env,
  }) => {
    env.fake.setContextWindow(undefined);
    env.fake.setHandler((request) => (isSummarising(request) ? { text: 'SUMMARY asked for' } : { text: filler('answer') }));
    const sessionId = await env.newSession();
    const compact = () =>
      call<Record<string, unknown>>(`${env.api.url}/session/${sessionId}/compact`, { headers: env.user.auth, json: {} });

    await ask(env, sessionId, 1);
    const short = await compact();
    expect(short.status, short.text).toBe(200);
    expect(short.body).toMatchObject({ compacted: false });

    for (let index = 2; index <= 4; index++) await ask(env, sessionId, index);
    const done = await compact();
    expect(done.status, done.text).toBe(200);
    expect(done.body).toMatchObject({ compacted: true, summaryMessageId: expect.any(String), throughMessageId: expect.any(String) });
    expect(done.body.tokensAfter as number).toBeLessThan(done.body.tokensBefore as number);
    const [event] = compactions(await env.events(sessionId));
    expect(event).toMatchObject({ reason: 'requested', summaryMessageId: done.body.summaryMessageId });
    expect(event!.turnId).toBeUndefined();

    const before = env.fake.requests.length;
    await ask(env, sessionId, 5);
    const sent = turnRequests(env, before)[0]!
      .body.messages.map((message) => messageText(message) ?? '')
      .join('\n');
    expect(sent).toContain('SUMMARY asked for');
    expect(sent).not.toContain('question-1 ');

    // While a turn runs: 409, and nothing is compacted.
    let release!: () => void;
    env.fake.setHandler(() => ({ text: 'slow', holdUntil: new Promise<void>((resolve) => (release = resolve)) }));
    const running = call(`${env.api.url}/session/${sessionId}?async=1`, {
      headers: env.user.auth,
      json: { parts: [{ type: 'text', text: 'wait' }] },
    });
    await env.waitForEvents(sessionId, (events) => events.filter((event) => event.type === 'turn.started').length === 6);
    const busy = await compact();
    expect(busy.status).toBe(409);
    release();
    await running;
    await env.waitForEvents(sessionId, (events) => events.filter((event) => event.type === 'turn.completed').length === 6);
    expect(compactions(await env.events(sessionId))).toHaveLength(1);
  });

  test('a long tool result is cut in what the model reads, with a note, and kept whole', async ({ env }) => {
    env.fake.setContextWindow(undefined);
    const tool = { id: 'fetch_report', description: 'The report', parameters: { type: 'object', properties: {} } };
    const sessionId = await env.newSession({ customTools: [tool] });
    env.fake.setHandler(undefined);
    env.fake.enqueue({ toolCalls: [{ id: 'call_r', name: 'fetch_report', arguments: {} }] }, { text: 'Read it.' });
    const waiting = await call<Reply>(`${env.api.url}/session/${sessionId}`, {
      headers: env.user.auth,
      json: { parts: [{ type: 'text', text: 'get the report' }] },
    });
    expect(waiting.body.status).toBe('waiting');
    const report = 'r'.repeat(5_000);
    const before = env.fake.requests.length;
    const answered = await call(`${env.api.url}/session/${sessionId}/tool-result`, {
      headers: env.user.auth,
      json: { toolCallId: 'call_r', output: report },
    });
    expect(answered.status).toBe(200);
    await env.waitForEvents(sessionId, (events) => events.some((event) => event.type === 'turn.completed'));

    const toolMessage = env.fake.requests.slice(before)[0]!.body.messages.find((message) => message.role === 'tool')!;
    const shown = messageText(toolMessage)!;
    expect(shown.startsWith('r'.repeat(2_000))).toBe(true);
    expect(shown).not.toContain('r'.repeat(2_001));
    expect(shown).toContain('this result has 5000 characters');
    const stored = (await messagesOf(env, sessionId)).find((message) => message.role === 'tool')!;
    expect(stored.parts[0]).toMatchObject({ type: 'tool-result', output: report });
  });
  test('a compaction is retried like a step, and aborted with its turn', async ({ env }) => {
    env.fake.setContextWindow(undefined);
    const sessionId = await env.newSession();
    env.fake.setHandler(() => ({ text: filler('answer') }));
    for (let index = 1; index <= 3; index++) await ask(env, sessionId, index);

    // Asked for: a summarising call that fails with a 503 is tried again.
    let calls = 0;
    env.fake.setHandler((request) => {
      if (!isSummarising(request)) return { text: filler('answer') };
      return ++calls === 1 ? { status: 503 } : { text: 'SUMMARY after a retry' };
    });
    const done = await call<{ compacted: boolean }>(`${env.api.url}/session/${sessionId}/compact`, { headers: env.user.auth, json: {} });
    expect(done.body.compacted).toBe(true);
    expect(calls).toBe(2);

    // In a turn: the turn's abort stops the summarising call, and nothing is stored.
    env.fake.setContextWindow(2_500);
    env.fake.setHandler((request) => (isSummarising(request) ? { text: 'never', stallAfterChunks: 0 } : { text: filler('answer') }));
    const summarisingBefore = env.fake.requests.filter(isSummarising).length;
    for (let index = 4; env.fake.requests.filter(isSummarising).length === summarisingBefore; index++) {
      expect(index).toBeLessThan(12);
      const sent = await call(`${env.api.url}/session/${sessionId}?async=1`, {
        headers: env.user.auth,
        json: { parts: [{ type: 'text', text: `question-${index} ${filler(`q${index}`)}` }] },
      });
      expect(sent.status).toBe(202);
      await env.waitForEvents(
        sessionId,
        (events) =>
          events.filter((event) => event.type === 'turn.completed').length >= index ||
          env.fake.requests.filter(isSummarising).length > summarisingBefore,
      );
    }
    const aborted = await call<{ aborted: boolean }>(`${env.api.url}/session/${sessionId}/abort`, { headers: env.user.auth, json: {} });
    expect(aborted.body.aborted).toBe(true);
    const events = await env.waitForEvents(sessionId, (all) => all.some((event) => event.type === 'turn.aborted'));
    expect(events.at(-1)?.type).toBe('turn.aborted');
    expect(compactions(events)).toHaveLength(1);
    expect((await messagesOf(env, sessionId)).filter((message) => message.role === 'summary')).toHaveLength(1);
    await env.fake.waitForDisconnects(1);
  });
  test('a revert during an asked-for compaction is taken at once; the compaction then stores nothing and answers 409', async ({ env }) => {
    env.fake.setContextWindow(undefined);
    env.fake.setHandler(() => ({ text: filler('answer') }));
    const sessionId = await env.newSession();
    const asked: Reply[] = [];
    for (let index = 1; index <= 3; index++) asked.push(await ask(env, sessionId, index));
    let release!: () => void;
    env.fake.setHandler((request) =>
      isSummarising(request)
        ? { text: 'SUMMARY of what was reverted', holdUntil: new Promise<void>((resolve) => (release = resolve)) }
        : { text: 'answered' },
    );
    const summarisedBefore = env.fake.requests.filter(isSummarising).length;
    const compacting = call(`${env.api.url}/session/${sessionId}/compact`, { headers: env.user.auth, json: {} });
    await expect.poll(() => env.fake.requests.filter(isSummarising).length).toBe(summarisedBefore + 1);

    // The revert does not wait for the summary: questions 2 and 3 leave the conversation now.
    const reverted = await call<{ reverted: string[] }>(`${env.api.url}/session/${sessionId}/revert`, {
      headers: env.user.auth,
      json: { messageId: asked[1]!.messageId },
    });
    expect(reverted.status, reverted.text).toBe(200);
    expect(reverted.body.reverted).toHaveLength(4);

    // The summary read them, so it is not stored: the compaction is refused, and says why.
    release();
    const refused = await compacting;
    expect(refused.status, refused.text).toBe(409);
    expect(refused.text).toMatch(/reverted while it was being compacted/);
    expect(compactions(await env.events(sessionId))).toHaveLength(0);
    expect((await messagesOf(env, sessionId)).filter((message) => message.role === 'summary')).toHaveLength(0);

    // The next turn reads the conversation as the revert left it.
    const before = env.fake.requests.length;
    await ask(env, sessionId, 4);
    const sentToModel = turnRequests(env, before)[0]!
      .body.messages.map((message) => messageText(message) ?? '')
      .join('\n');
    expect(sentToModel).not.toContain('SUMMARY');
    expect(sentToModel).toContain('question-1');
    expect(sentToModel).not.toContain('question-2');
    expect(sentToModel).toContain('question-4');
  });

  test('a send during an asked-for compaction is recorded at once, and its turn reads the summary', async ({ env }) => {
    env.fake.setContextWindow(undefined);
    env.fake.setHandler(() => ({ text: filler('answer') }));
    const sessionId = await env.newSession();
    for (let index = 1; index <= 3; index++) await ask(env, sessionId, index);
    let release!: () => void;
    env.fake.setHandler((request) =>
      isSummarising(request)
        ? { text: 'SUMMARY while you waited', holdUntil: new Promise<void>((resolve) => (release = resolve)) }
        : { text: 'answered' },
    );
    const summarisedBefore = env.fake.requests.filter(isSummarising).length;
    const compacting = call<{ compacted: boolean }>(`${env.api.url}/session/${sessionId}/compact`, { headers: env.user.auth, json: {} });
    await expect.poll(() => env.fake.requests.filter(isSummarising).length).toBe(summarisedBefore + 1);

    // The send is taken while the summary is being written: its message is recorded, its turn waits.
    const sent = await call<{ messageId: string }>(`${env.api.url}/session/${sessionId}?async=1`, {
      headers: env.user.auth,
      json: { parts: [{ type: 'text', text: 'question-4 after the summary' }] },
    });
    expect(sent.status).toBe(202);
    await env.waitForEvents(sessionId, (events) =>
      events.some((event) => event.type === 'message.created' && event.message.id === sent.body.messageId),
    );
    const waiting = await env.events(sessionId);
    expect(waiting.filter((event) => event.type === 'turn.started')).toHaveLength(3);
    // Another compaction meanwhile is refused.
    const again = await call(`${env.api.url}/session/${sessionId}/compact`, { headers: env.user.auth, json: {} });
    expect(again.status).toBe(409);

    const before = env.fake.requests.length;
    release();
    expect((await compacting).body.compacted).toBe(true);
    await env.waitForEvents(sessionId, (events) => events.filter((event) => event.type === 'turn.completed').length === 4);
    const sentToModel = turnRequests(env, before)[0]!
      .body.messages.map((message) => messageText(message) ?? '')
      .join('\n');
    expect(sentToModel).toContain('SUMMARY while you waited');
    expect(sentToModel).toContain('question-4 after the summary');
  });
});
