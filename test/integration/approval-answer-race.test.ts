// An answer that comes while the approval's first steps settle still reaches its turn. Turns ask their
// user again and again, and each question is answered as it arrives on the session's event stream, as a
// client following it would: at once or a few milliseconds later (before the channel's dispatch has begun,
// or while it runs), and, over a channel that takes it, the moment the receiver has the dispatch (while the
// dispatch is finishing). Every answer the API took (200, or 409 naming the stored answer) must resume its
// turn: an answer stored without its workflow taking it would leave the turn waiting forever. Once with a
// channel whose dispatch succeeds, once with one whose dispatch fails for good (an address the outbound
// guard refuses).
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startAgentEnv, type AgentEnv } from '../helpers/harness/agent-env.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/fakes/webhook-receiver.ts';
import { call } from '../helpers/client/request.ts';
import { sseReader, type SseReader } from '../helpers/client/sse-reader.ts';
import type { SessionEvent } from '../../contract/events.ts';

/** Sessions asking at once, and questions each asks in turn: enough to hit the window many times. */
const SESSIONS = 8;
const ROUNDS = 12;
/**
 * How long after the question a round answers, in turn: pushed at once, an answer comes before the
 * channel's dispatch has begun; spread over the next milliseconds, answers land as it runs.
 */
const ANSWER_DELAYS_MS = [0, 10, 25, 50];
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

/**
 * The events of a new session, pushed as they are stored: the answer goes out as soon as the question is
 * there, without the load (and the lag) of polling the event list.
 */
async function followEvents(sessionId: string): Promise<SseReader> {
  const response = await fetch(`${env.api.url}/session/${sessionId}/events`, {
    headers: { ...env.user.auth, accept: 'text/event-stream' },
  });
  expect(response.status).toBe(200);
  return sseReader(response);
}

/** The next event of the stream that matches, or undefined if none comes within `timeoutMs`. */
async function nextEvent<T extends SessionEvent>(
  stream: SseReader,
  match: (event: SessionEvent) => event is T,
  timeoutMs: number,
): Promise<T | undefined> {
  return (stream.until(match, timeoutMs) as Promise<T>).catch(() => undefined);
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

/**
 * Resolves once the receiver has the dispatch of this approval (its body names the approval's id), looking
 * every millisecond: the answer must land while the dispatch is still in flight.
 */
async function dispatchArrived(approvalId: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!receiver.requests.some((request) => request.body.includes(`"id":"${approvalId}"`))) {
    if (Date.now() > deadline) throw new Error(`approval ${approvalId} was never dispatched to the receiver`);
    await sleep(1);
  }
}

/**
 * A session's rounds: each asks, is answered, and must end. With `answerOnDispatch`, every other round
 * answers the moment the channel's receiver has the dispatch instead of after a delay.
 */
async function askAndAnswer(sessionId: string, answerOnDispatch: boolean): Promise<Round[]> {
  const rounds: Round[] = [];
  const stream = await followEvents(sessionId);
  try {
    for (let round = 0; round < ROUNDS; round++) {
      const sent = await call(`${env.api.url}/session/${sessionId}?async=1`, {
        headers: env.user.auth,
        json: { parts: [{ type: 'text', text: `Question ${round}` }] },
      });
      expect(sent.status).toBe(202);
      const asked = await nextEvent(stream, isType('approval.requested'), 20_000);
      if (!asked) throw new Error(`session ${sessionId}: round ${round} asked nothing`);
      if (answerOnDispatch && round % 2 === 1) await dispatchArrived(asked.approvalId);
      else await sleep(ANSWER_DELAYS_MS[(round >> 1) % ANSWER_DELAYS_MS.length]!);
      const answerStatuses = await answer(asked.approvalId);
      const ended = await nextEvent(stream, isType('turn.completed'), TURN_END_MS);
      rounds.push({ sessionId, approvalId: asked.approvalId, answerStatuses, resumed: ended !== undefined });
      if (!ended) return rounds;
    }
    return rounds;
  } finally {
    await stream.close();
  }
}

async function soakChannel(userChannels: unknown[], answerOnDispatch: boolean): Promise<void> {
  const { name } = await env.deploy({ userChannels });
  const sessions = await Promise.all(
    Array.from({ length: SESSIONS }, async () => {
      const opened = await call<{ id: string }>(`${env.api.url}/agent/${name}/session`, { headers: env.user.auth, json: {} });
      expect(opened.status).toBe(201);
      return opened.body.id;
    }),
  );
  const rounds = (await Promise.all(sessions.map((id) => askAndAnswer(id, answerOnDispatch)))).flat();
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
    await soakChannel([{ provider: 'webhook', config: { url: receiver.url } }], true);
    // Half the rounds waited for their dispatch; the others may have been answered before theirs.
    expect(receiver.requests.length).toBeGreaterThanOrEqual((SESSIONS * ROUNDS) / 2);
  });

  test('over a channel refused for good, every answer resumes its turn', { timeout: 300_000 }, async () => {
    await soakChannel([{ provider: 'webhook', config: { url: 'http://169.254.169.254/approvals' } }], false);
  });
});
