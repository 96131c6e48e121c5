// Compaction through the CLI against the real service (fake model, playing a 4,000-token window):
// `sessions compact` says what it did (or that there was nothing to do) and gives the result with
// --json, `sessions show` marks the summary in the conversation, and `send` notes a compaction its
// turn needed.
import { beforeAll, describe, expect } from 'vitest';
import { agentTest } from '../helpers/harness/fixtures.ts';
import type { AgentEnv } from '../helpers/harness/agent-env.ts';
import { call } from '../helpers/client/request.ts';
import type { MessageView, SessionEvent } from '../../contract/events.ts';
import { ensureBuilt, loginWith, newConfigDir, runCli } from './run-cli.ts';
import { filler, isSummarising } from '../helpers/fakes/compaction-requests.ts';

const test = agentTest({ MODEL_CONTEXT_WINDOWS: 'fake-model=4000' });

beforeAll(() => ensureBuilt());

const SUMMARY = 'SUMMARY: the user asked numbered questions about lorem ipsum.';

function answerBriefly(env: AgentEnv): void {
  env.fake.setHandler((request) => (isSummarising(request) ? { text: SUMMARY } : { text: filler('answer', 30) }));
}

async function ask(env: AgentEnv, sessionId: string, index: number): Promise<void> {
  const response = await call<{ status: string }>(`${env.api.url}/session/${sessionId}`, {
    headers: env.user.auth,
    json: { parts: [{ type: 'text', text: `question-${index} ${filler(`q${index}`, 30)}` }] },
  });
  expect(response.status, response.text).toBe(200);
  expect(response.body.status).toBe('completed');
}

async function messagesOf(env: AgentEnv, sessionId: string): Promise<MessageView[]> {
  return (await call<{ messages: MessageView[] }>(`${env.api.url}/session/${sessionId}`, { headers: env.user.auth })).body.messages;
}

const compactions = (events: SessionEvent[]) =>
  events.filter((event): event is Extract<SessionEvent, { type: 'session.compacted' }> => event.type === 'session.compacted');

describe('sessions compact', () => {
  test('notes what was compacted (or that nothing was), --json gives the result, and show marks the summary', async ({ env }) => {
    answerBriefly(env);
    const configDir = newConfigDir();
    await loginWith(configDir, env.api.url, env.user.apiKey);
    const sessionId = await env.newSession();

    // One turn: nothing to compact.
    await ask(env, sessionId, 1);
    const nothing = await runCli(['sessions', 'compact', sessionId], { configDir });
    expect(nothing.code, nothing.stderr).toBe(0);
    expect(nothing.stdout).toBe('');
    expect(nothing.stderr).toBe('Nothing to compact: the conversation is too short to summarise any of it.\n');
    const nothingJson = await runCli(['sessions', 'compact', sessionId, '--json'], { configDir });
    expect(nothingJson.code, nothingJson.stderr).toBe(0);
    expect(JSON.parse(nothingJson.stdout)).toMatchObject({ compacted: false });

    // Three turns: the first two are summarised; the note names what the service stored.
    for (let index = 2; index <= 3; index++) await ask(env, sessionId, index);
    const done = await runCli(['sessions', 'compact', sessionId], { configDir });
    expect(done.code, done.stderr).toBe(0);
    expect(done.stdout).toBe('');
    const noted =
      /^Compacted: about (\d+) tokens down to (\d+), through message (msg_\S+) \(summary (msg_\S+), (\$\d+\.\d{4}|-)\)\.\n$/.exec(
        done.stderr,
      );
    expect(noted, done.stderr).not.toBeNull();
    const [, before, after, through, summaryId] = noted!;
    expect(Number(before)).toBeGreaterThan(Number(after));
    const [event] = compactions(await env.events(sessionId));
    expect(event).toMatchObject({
      reason: 'requested',
      tokensBefore: Number(before),
      tokensAfter: Number(after),
      throughMessageId: through,
      summaryMessageId: summaryId,
    });
    const messages = await messagesOf(env, sessionId);
    // Through the second reply, the last message before the last turn.
    expect(messages.filter((message) => message.role !== 'summary').map((message) => message.id)[3]).toBe(through);

    // --json: the result as the API gives it, nothing on stderr.
    await ask(env, sessionId, 4);
    const json = await runCli(['sessions', 'compact', sessionId, '--json'], { configDir });
    expect(json.code, json.stderr).toBe(0);
    expect(json.stderr).toBe('');
    const result = JSON.parse(json.stdout) as Record<string, unknown>;
    const second = compactions(await env.events(sessionId))[1]!;
    expect(result).toMatchObject({
      compacted: true,
      summaryMessageId: second.summaryMessageId,
      throughMessageId: second.throughMessageId,
      tokensBefore: second.tokensBefore,
      tokensAfter: second.tokensAfter,
      usage: { inputTokens: expect.any(Number), outputTokens: expect.any(Number) },
    });
    expect(result.summaryMessageId).not.toBe(summaryId);

    // show: each summary marked with what it stands for, its text under it.
    const shown = await runCli(['sessions', 'show', sessionId], { configDir });
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain(
      `\nsummary ${summaryId}\n[a summary of the conversation through ${through}, in place of which the model reads:]\n${SUMMARY}\n`,
    );
    expect(shown.stdout).toContain(
      `[a summary of the conversation through ${second.throughMessageId}, in place of which the model reads:]`,
    );
    expect(shown.stdout.match(/\[a summary of the conversation through msg_/g)).toHaveLength(2);
    // Nothing is hidden: every question is still shown.
    for (let index = 1; index <= 4; index++) expect(shown.stdout).toContain(`question-${index} `);
  });

  test('compact of a session with a turn running exits 1 with the 409', async ({ env }) => {
    answerBriefly(env);
    const configDir = newConfigDir();
    await loginWith(configDir, env.api.url, env.user.apiKey);
    const sessionId = await env.newSession();
    for (let index = 1; index <= 2; index++) await ask(env, sessionId, index);
    let release!: () => void;
    env.fake.enqueue({ text: 'slow answer', holdUntil: new Promise<void>((resolve) => (release = resolve)) });
    const asked = env.fake.requests.length;
    const running = call(`${env.api.url}/session/${sessionId}?async=1`, {
      headers: env.user.auth,
      json: { parts: [{ type: 'text', text: 'wait for it' }] },
    });
    await env.fake.waitForRequests(asked + 1);
    const refused = await runCli(['sessions', 'compact', sessionId], { configDir });
    release();
    await running;
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toContain('409');
    expect(refused.stderr).toContain('A turn is running in this session');
    await env.waitForEvents(sessionId, (events) => events.filter((event) => event.type === 'turn.completed').length === 3);
    expect(compactions(await env.events(sessionId))).toEqual([]);
  });

  test('send notes a compaction its turn needed, near the window', async ({ env }) => {
    answerBriefly(env);
    const configDir = newConfigDir();
    await loginWith(configDir, env.api.url, env.user.apiKey);
    const sessionId = await env.newSession();
    for (let index = 1; index <= 3; index++) await ask(env, sessionId, index);
    // About 2,700 tokens more: past 80% of the 4,000-token window, so the step compacts first.
    const sent = await runCli(['send', '--session', sessionId, `question-4 ${filler('q4', 560)}`], { configDir });
    expect(sent.code, sent.stderr).toBe(0);
    expect(sent.stdout).toBe(`${filler('answer', 30)}\n`);
    const [event] = compactions(await env.events(sessionId));
    expect(event).toMatchObject({ reason: 'threshold', turnId: expect.any(String) });
    expect(event!.tokensBefore).toBeGreaterThan(event!.tokensAfter);
    expect(sent.stderr).toContain(`(the conversation was compacted: about ${event!.tokensBefore} tokens down to ${event!.tokensAfter})`);
  });
});
