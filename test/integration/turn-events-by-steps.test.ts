// The turn's own events written by its model steps (workflows/turn.ts, patch turn-events-by-steps):
// the first step's claim writes turn.started, a final answer writes turn.completed with its message.
// Each is written once, never after the turn ended, and never while a user message of the turn (a
// steering message) is unread; a steering message that comes after the end is a turn of its own.
import { randomUUID } from 'node:crypto';
import { describe, expect } from 'vitest';
import { apiTest } from '../helpers/harness/fixtures.ts';
import { storedSession } from '../helpers/harness/stored-session.ts';
import type { TestUser } from '../helpers/harness/users.ts';
import { inTransaction, type Db } from '../../store/db.ts';
import { getSession } from '../../store/sessions.ts';
import { appendEvents, readEvents } from '../../store/events.ts';
import { claimAssistantMessage, finishAssistantMessage, recordUserMessage, StaleAttemptError } from '../../store/messages.ts';
import type { SessionEvent } from '../../contract/events.ts';

const test = apiTest();
const MODEL = { providerId: 'openai-compatible', modelId: 'fake-model' };
const msgId = () => `msg_${randomUUID().replace(/-/g, '')}`;

const newSession = (db: Db, user: TestUser) => storedSession(db, user, 'steps');

/** A user message and its turn's first step claimed: the turn has started. */
async function startedTurn(db: Db, sessionId: string): Promise<{ turnId: string; stepId: string }> {
  const turnId = msgId();
  await recordUserMessage(db, { sessionId, messageId: turnId, parts: [{ type: 'text', text: 'hello' }] });
  const stepId = msgId();
  await claimAssistantMessage(db, { sessionId, turnId, messageId: stepId, attempt: 1, model: MODEL, startsTurn: { turnId } });
  return { turnId, stepId };
}

const typesOf = (events: SessionEvent[], turnId: string) =>
  events.filter((event) => (event as { turnId?: string }).turnId === turnId).map((event) => event.type);

const finish = (db: Db, sessionId: string, stepId: string, turnId: string, read: string[]) =>
  finishAssistantMessage(db, {
    sessionId,
    messageId: stepId,
    attempt: 1,
    parts: [{ type: 'text', text: 'done' }],
    status: 'complete',
    usage: { inputTokens: 5, outputTokens: 2 },
    costUsd: 0.000000015,
    completesTurn: {
      turnId,
      messagesTurnId: turnId,
      readUserMessageIds: read,
      priorUsage: { inputTokens: 10, outputTokens: 1 },
      priorCostUsd: 0.5,
    },
  });

describe('turn.started by the first step', () => {
  test('goes just before the first message, once however often the first message is made, and marks the session running', async ({
    db,
    user,
  }) => {
    const sessionId = await newSession(db, user);
    const { turnId, stepId } = await startedTurn(db, sessionId);
    // A run reset by an operator makes its first message again, under another id.
    await claimAssistantMessage(db, { sessionId, turnId, messageId: msgId(), attempt: 1, model: MODEL, startsTurn: { turnId } });
    const events = await readEvents(db, sessionId, 0, 100);
    expect(events.filter((event) => event.type === 'turn.started')).toHaveLength(1);
    const started = events.findIndex((event) => event.type === 'turn.started');
    expect(events[started + 1]).toMatchObject({ type: 'message.created', message: { id: stepId, role: 'assistant' } });
    expect((await getSession(db, sessionId))?.status).toBe('running');
  });

  test('an attempt that claims after the turn ended is refused and writes nothing', async ({ db, user }) => {
    const sessionId = await newSession(db, user);
    const turnId = msgId();
    await recordUserMessage(db, { sessionId, messageId: turnId, parts: [{ type: 'text', text: 'hello' }] });
    await inTransaction(db, (client) => appendEvents(client, sessionId, [{ type: 'turn.aborted', data: { turnId } }], { status: 'idle' }));
    const before = await readEvents(db, sessionId, 0, 100);
    await expect(
      claimAssistantMessage(db, { sessionId, turnId, messageId: msgId(), attempt: 1, model: MODEL, startsTurn: { turnId } }),
    ).rejects.toBeInstanceOf(StaleAttemptError);
    expect(await readEvents(db, sessionId, 0, 100)).toEqual(before);
    expect((await getSession(db, sessionId))?.status).toBe('idle');
  });
});

describe('turn.completed by the final step', () => {
  test('goes with the final message, with the totals as stored, and the session idle; a second finish reports it without writing again', async ({
    db,
    user,
  }) => {
    const sessionId = await newSession(db, user);
    const { turnId, stepId } = await startedTurn(db, sessionId);
    const finished = await finish(db, sessionId, stepId, turnId, [turnId]);
    expect(finished.turnCompleted).toBe(true);
    expect(finished.turnAgeSeconds).toBeGreaterThanOrEqual(0);
    const events = await readEvents(db, sessionId, 0, 100);
    expect(events.slice(-2).map((event) => event.type)).toEqual(['message.completed', 'turn.completed']);
    // The cost as the column keeps it (8 decimals): 0.000000015 is stored as 0.00000002.
    expect(events.at(-1)).toMatchObject({ turnId, usage: { inputTokens: 15, outputTokens: 3 }, costUsd: 0.50000002 });
    expect((await getSession(db, sessionId))?.status).toBe('idle');

    const again = await finish(db, sessionId, stepId, turnId, [turnId]);
    expect(again.turnCompleted).toBe(true);
    expect(typesOf(await readEvents(db, sessionId, 0, 100), turnId)).toEqual(['turn.started', 'turn.completed']);
  });

  test('a user message of the turn the step did not read keeps the turn open; so does an end written before', async ({ db, user }) => {
    const sessionId = await newSession(db, user);
    const { turnId, stepId } = await startedTurn(db, sessionId);
    const steer = msgId();
    const joined = await recordUserMessage(db, {
      sessionId,
      messageId: steer,
      parts: [{ type: 'text', text: 'also this' }],
      joinTurn: turnId,
      joinTurnId: turnId,
    });
    expect(joined.joined).toBe(true);
    const finished = await finish(db, sessionId, stepId, turnId, [turnId]);
    expect(finished.turnCompleted).toBe(false);
    expect(typesOf(await readEvents(db, sessionId, 0, 100), turnId)).toEqual(['turn.started']);

    // Aborted meanwhile: the next step's final answer does not add a second end.
    const next = msgId();
    await claimAssistantMessage(db, { sessionId, turnId, messageId: next, attempt: 1, model: MODEL });
    await inTransaction(db, (client) => appendEvents(client, sessionId, [{ type: 'turn.aborted', data: { turnId } }], { status: 'idle' }));
    expect((await finish(db, sessionId, next, turnId, [turnId, steer])).turnCompleted).toBe(false);
    expect(typesOf(await readEvents(db, sessionId, 0, 100), turnId)).toEqual(['turn.started', 'turn.aborted']);
  });

  test('a steering message after the end is not joined to the ended turn: it is a turn of its own', async ({ db, user }) => {
    const sessionId = await newSession(db, user);
    const { turnId, stepId } = await startedTurn(db, sessionId);
    expect((await finish(db, sessionId, stepId, turnId, [turnId])).turnCompleted).toBe(true);
    const late = msgId();
    const recorded = await recordUserMessage(db, {
      sessionId,
      messageId: late,
      parts: [{ type: 'text', text: 'one more thing' }],
      joinTurn: turnId,
      joinTurnId: turnId,
    });
    expect(recorded).toMatchObject({ joined: false, turnStarted: false });
    expect(recorded.message).toMatchObject({ id: late, turnId: late });
    // Seen again (a retried send), it says the same.
    const again = await recordUserMessage(db, { sessionId, messageId: late, parts: [], joinTurn: turnId, joinTurnId: turnId });
    expect(again.joined).toBe(false);
  });
});
