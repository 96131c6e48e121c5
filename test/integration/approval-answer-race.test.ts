// An answer that comes while the approval's first steps settle still reaches its turn. Turns ask their
// user again and again, and each question is answered the moment it shows in the session's events, so
// the answer's Update lands while the channel's dispatch is finishing. Every answer the API took (200,
// or 409 naming the stored answer) must resume its turn: an answer stored without its workflow taking
// it would leave the turn waiting forever. Once with a channel whose dispatch succeeds, once with one
// whose dispatch fails for good (an address the outbound guard refuses).
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startAgentEnv, type AgentEnv } from '../helpers/harness/agent-env.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/fakes/webhook-receiver.ts';
import { call } from '../helpers/client/request.ts';
import type { SessionEvent } from '../../contract/events.ts';

/** Sessions asking at once, and questions each asks in turn: enough to hit the window many times. */
const SESSIONS = 8;
const ROUNDS = 12;
/** How long a resumed turn may take to end before it counts as stuck. */
const TURN_END_MS = 20_000;

let env: AgentEnv;
let receiver: WebhookReceiver;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  env = await startAgentEnv({
    OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8',
    RATE_LIMIT_POINTS: '1000000',
    APPROVAL_DISPATCH_MAX_ATTEMPTS: '1',
  });
  let calls = 0;
  // Every user message asks; the answer (a tool message) gets the final reply.
  env.fake.setHandler((request) =>
    request.body.messages.at(-1)?.role === 'tool'
      ? { text: 'Resumed.' }
      : { toolCalls: [{ id: `call_ask_${++calls}`, name: 'ask_my_user', arguments: { question: 'Go on?', options: ['yes', 'no'] } }] },
  );
});

afterAll(async () => {
  await env?.close();
  await receiver?.close();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls the session's events after `after` until one matches, as fast as a client following the stream. */
async function nextEvent<T extends SessionEvent>(
  sessionId: string,
  after: number,
  match: (event: SessionEvent) => event is T,
  timeoutMs: number,
): Promise<T | undefined> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const found = (await env.events(sessionId, after)).find(match);
    if (found) return found;
    await sleep(5);
  }
  return undefined;
}

const isType =
  <K extends SessionEvent['type']>(type: K) =>
  (event: SessionEvent): event is Extract<SessionEvent, { type: K }> =>
    event.type === type;

/**
 * Answers as a person clicking again after an error would, until the service says taken (200) or taken
 * before (409); the statuses, in order. A 409 is right only after an attempt that was not confirmed (503).
 */
async function answer(approvalId: string): Promise<number[]> {
  const statuses: number[] = [];
  for (let attempt = 0; ; attempt++) {
    const response = await call(`${env.api.url}/approval/${approvalId}/answer`, { headers: env.user.auth, json: { choice: 'yes' } });
    statuses.push(response.status);
    if (response.status === 200 || response.status === 409 || attempt >= 20) return statuses;
    await sleep(100);
  }
}

/** Taken at once, or after answers that were not confirmed: 200, or 503s then 200 or 409. */
function taken(statuses: readonly number[]): boolean {
  const last = statuses.at(-1);
  const before = statuses.slice(0, -1);
  return before.every((status) => status === 503) && (last === 200 || (last === 409 && before.length > 0));
}

interface Round {
  sessionId: string;
  approvalId: string;
  answerStatuses: number[];
  resumed: boolean;
}

async function askAndAnswer(sessionId: string): Promise<Round[]> {
  const rounds: Round[] = [];
  let after = (await env.events(sessionId)).at(-1)?.seq ?? 0;
  for (let round = 0; round < ROUNDS; round++) {
    const sent = await call(`${env.api.url}/session/${sessionId}?async=1`, {
      headers: env.user.auth,
      json: { parts: [{ type: 'text', text: `Question ${round}` }] },
    });
    expect(sent.status).toBe(202);
    const asked = await nextEvent(sessionId, after, isType('approval.requested'), 20_000);
    if (!asked) throw new Error(`session ${sessionId}: round ${round} asked nothing`);
    const answerStatuses = await answer(asked.approvalId);
    const ended = await nextEvent(sessionId, asked.seq, isType('turn.completed'), TURN_END_MS);
    rounds.push({ sessionId, approvalId: asked.approvalId, answerStatuses, resumed: ended !== undefined });
    if (!ended) return rounds;
    after = ended.seq;
  }
  return rounds;
}

async function soakChannel(userChannels: unknown[]): Promise<void> {
  const { name } = await env.deploy({ userChannels });
  const sessions = await Promise.all(
    Array.from({ length: SESSIONS }, async () => {
      const opened = await call<{ id: string }>(`${env.api.url}/agent/${name}/session`, { headers: env.user.auth, json: {} });
      expect(opened.status).toBe(201);
      return opened.body.id;
    }),
  );
  const rounds = (await Promise.all(sessions.map(askAndAnswer))).flat();
  const stuck = rounds.filter((round) => !round.resumed);
  const details = await Promise.all(
    stuck.map(async (round) => ({
      ...round,
      stored: (await call(`${env.api.url}/approval/${round.approvalId}`, { headers: env.user.auth })).body,
    })),
  );
  expect(details, 'answers taken whose turns never resumed').toEqual([]);
  expect(rounds.filter((round) => !taken(round.answerStatuses))).toEqual([]);
  expect(rounds).toHaveLength(SESSIONS * ROUNDS);
}

describe('answers that arrive as the approval is sent', () => {
  test('over a channel whose dispatch succeeds, every answer resumes its turn', { timeout: 300_000 }, async () => {
    await soakChannel([{ provider: 'webhook', config: { url: receiver.url } }]);
    expect(receiver.requests.length).toBeGreaterThan(0);
  });

  test('over a channel refused for good, every answer resumes its turn', { timeout: 300_000 }, async () => {
    await soakChannel([{ provider: 'webhook', config: { url: 'http://169.254.169.254/approvals' } }]);
  });
});
