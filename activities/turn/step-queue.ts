// A user's running turns share the workers with everyone else's: a model step, a tool call and a
// compaction each take one of its user's RUNNING_TURNS_PER_USER places (store/step-slots.ts) before they
// run, and give it back when they end. Without a place nothing runs: the turn says so once (`turn.queued`)
// and its workflow waits until something of its user gives a place back and wakes the longest waiter with
// a signal (STEP_PLACE_FREED, naming the waiter's key), so one user starting hundreds of turns, or one step
// asking for dozens of calls at once, holds at most that many of the workers' activity slots, its waiters
// cost nothing while they wait, and other users' work starts as it would.
import { Context } from '@temporalio/activity';
import { WorkflowNotFoundError } from '@temporalio/common';
import { appendEvents } from '../../store/events.ts';
import { inTransaction, type Db } from '../../store/db.ts';
import { acquireStepSlot, forgetStepWaiter, releaseStepSlot } from '../../store/step-slots.ts';
import { turnWorkflowId } from '../../lib/workflow-safe/workflow-ids.ts';
import { STEP_PLACE_FREED, type ModelStepInput, type StepResult } from '../../core/turn-types.ts';
import { stepPlaceKey } from '../../core/place-keys.ts';
import type { Logger } from '../../lib/logger.ts';

export interface StepQueueSettings {
  limit: number;
  /** How long a place outlives a worker that died holding it: the activity's start-to-close timeout. */
  leaseMs: number;
}

/** Signals a waiting workflow that a place is free for its waiter `placeKey`: false when that workflow is gone. */
export type WakeTurn = (workflowId: string, placeKey: string) => Promise<boolean>;

export interface PlaceDeps {
  db: Db;
  logger: Logger;
  wake: WakeTurn;
}

/** What asks for a place: whose, under which key (core/place-keys.ts), and where a freed place wakes it. */
export interface PlaceClaim {
  userId: string;
  key: string;
  workflowId: string;
  /** The turn that waits, which says so once (`turn.queued`); absent for a compaction asked for between turns. */
  waitingTurn?: { sessionId: string; turnId: string };
}

/** A release tries this many waiters whose workflows are gone before it leaves the rest to their timers. */
const WAKE_TRIES = 3;

/** Runs `run` in one of its user's places; without one, records that the turn waits and answers `queued()`. */
export async function inUserPlace<T>(
  deps: PlaceDeps,
  settings: StepQueueSettings,
  claim: PlaceClaim,
  run: () => Promise<T>,
  queued: () => T,
): Promise<T> {
  const { db } = deps;
  const slot = { userId: claim.userId, key: claim.key, limit: settings.limit, leaseMs: settings.leaseMs, workflowId: claim.workflowId };
  if (!(await acquireStepSlot(db, slot))) {
    if (claim.waitingTurn) await recordQueued(db, claim.waitingTurn, settings.limit);
    return queued();
  }
  try {
    return await run();
  } finally {
    // A place not given back (the database gone meanwhile) lapses with its lease; a wake-up not sent
    // leaves its waiter to its own timer.
    await giveBack(deps, claim.key, claim.userId).catch((error: unknown) =>
      deps.logger.warn({ err: error, stepKey: claim.key }, 'could not give a step place back'),
    );
  }
}

/** Runs a model step in one of its user's places; without one, records that the turn waits and returns `queued`. */
export function inStepSlot(
  deps: PlaceDeps,
  settings: StepQueueSettings,
  input: ModelStepInput,
  step: () => Promise<StepResult>,
): Promise<StepResult> {
  if (!input.mayQueue) return step();
  const claim = {
    userId: input.userId,
    key: stepPlaceKey(input.sessionId, input.messageId),
    workflowId: input.wakeWorkflowId ?? turnWorkflowId(input.sessionId, input.turnId),
    waitingTurn: { sessionId: input.sessionId, turnId: input.turnId },
  };
  return inUserPlace(deps, settings, claim, step, () => ({
    queued: true,
    messageId: input.messageId,
    text: '',
    toolCalls: [],
    finishReason: 'other',
    usage: { inputTokens: 0, outputTokens: 0 },
    costUsd: null,
  }));
}

/** Wakes a waiter (the workflow it waits in, naming it) through the running activity's client. */
export async function wakeWaiter(workflowId: string, placeKey: string): Promise<boolean> {
  try {
    await Context.current().client.workflow.getHandle(workflowId).signal(STEP_PLACE_FREED, placeKey);
    return true;
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return false;
    throw error;
  }
}

/** Gives the place back and wakes the user's longest waiter, skipping waiters whose turn is over. */
async function giveBack(deps: { db: Db; wake: WakeTurn }, key: string, userId: string): Promise<void> {
  for (let tries = 0; tries < WAKE_TRIES; tries++) {
    const next = await releaseStepSlot(deps.db, { key, userId });
    if (!next) return;
    if (await deps.wake(next.workflowId, next.stepKey)) return;
    // Its turn ended while it waited (aborted, the session deleted): nobody is left to wake there.
    await forgetStepWaiter(deps.db, next.stepKey);
  }
}

/** `turn.queued`, once per turn: a turn that waits again later (at another step or call) has said so already. */
async function recordQueued(db: Db, turn: { sessionId: string; turnId: string }, limit: number): Promise<void> {
  await inTransaction(db, async (client) => {
    const { rows } = await client.query(
      "SELECT 1 FROM events WHERE session_id = $1 AND type = 'turn.queued' AND data->>'turnId' = $2 LIMIT 1",
      [turn.sessionId, turn.turnId],
    );
    if (rows.length === 0) await appendEvents(client, turn.sessionId, [{ type: 'turn.queued', data: { turnId: turn.turnId, limit } }]);
  });
}
