// A user's running turns share the workers with everyone else's: a model step takes one of its user's
// RUNNING_TURNS_PER_USER places (store/step-slots.ts) before it calls the model, and gives it back when
// it ends. Without a place the step does not run: the turn says so once (`turn.queued`) and its
// workflow waits until a step of its user gives a place back and wakes the longest-waiting turn with
// a signal (STEP_PLACE_FREED), so one user starting hundreds of turns holds at most that many of the
// workers' activity slots, its waiting turns cost nothing while they wait, and other users' turns
// start as they would.
import { appendEvents } from '../../store/events.ts';
import { inTransaction, type Db } from '../../store/db.ts';
import { acquireStepSlot, forgetStepWaiter, releaseStepSlot } from '../../store/step-slots.ts';
import { turnWorkflowId } from '../../lib/workflow-ids.ts';
import type { ModelStepInput, StepResult } from '../../core/turn-types.ts';
import type { Logger } from '../../lib/logger.ts';

export interface StepQueueSettings {
  limit: number;
  /** How long a place outlives a worker that died holding it: the step's start-to-close timeout. */
  leaseMs: number;
}

/** Signals a waiting turn's workflow that a place is free: false when that workflow is gone. */
export type WakeTurn = (workflowId: string) => Promise<boolean>;

/** A release tries this many waiters whose workflows are gone before it leaves the rest to their timers. */
const WAKE_TRIES = 3;

/** Runs `step` in one of its user's places; without one, records that the turn waits and returns `queued`. */
export async function inStepSlot(
  deps: { db: Db; logger: Logger; wake: WakeTurn },
  settings: StepQueueSettings,
  input: ModelStepInput,
  step: () => Promise<StepResult>,
): Promise<StepResult> {
  const { db } = deps;
  if (!input.mayQueue) return step();
  const key = `${input.sessionId}:${input.messageId}`;
  const slot = { userId: input.userId, key, limit: settings.limit, leaseMs: settings.leaseMs };
  const workflowId = input.wakeWorkflowId ?? turnWorkflowId(input.sessionId, input.turnId);
  if (!(await acquireStepSlot(db, { ...slot, workflowId }))) {
    await recordQueued(db, input, settings.limit);
    return {
      queued: true,
      messageId: input.messageId,
      text: '',
      toolCalls: [],
      finishReason: 'other',
      usage: { inputTokens: 0, outputTokens: 0 },
      costUsd: null,
    };
  }
  try {
    return await step();
  } finally {
    // A place not given back (the database gone meanwhile) lapses with its lease; a wake-up not sent
    // leaves its turn to its own timer.
    await giveBack(deps, key, input.userId).catch((error: unknown) =>
      deps.logger.warn({ err: error, stepKey: key }, 'could not give a step place back'),
    );
  }
}

/** Gives the place back and wakes the user's longest-waiting turn, skipping waiters whose turn is over. */
async function giveBack(deps: { db: Db; wake: WakeTurn }, key: string, userId: string): Promise<void> {
  for (let tries = 0; tries < WAKE_TRIES; tries++) {
    const next = await releaseStepSlot(deps.db, { key, userId });
    if (!next) return;
    if (await deps.wake(next.workflowId)) return;
    // Its turn ended while it waited (aborted, the session deleted): nobody is left to wake there.
    await forgetStepWaiter(deps.db, next.stepKey);
  }
}

/** `turn.queued`, once per turn: a turn that waits again later (at another step) has said so already. */
async function recordQueued(db: Db, input: ModelStepInput, limit: number): Promise<void> {
  await inTransaction(db, async (client) => {
    const { rows } = await client.query(
      "SELECT 1 FROM events WHERE session_id = $1 AND type = 'turn.queued' AND data->>'turnId' = $2 LIMIT 1",
      [input.sessionId, input.turnId],
    );
    if (rows.length === 0) await appendEvents(client, input.sessionId, [{ type: 'turn.queued', data: { turnId: input.turnId, limit } }]);
  });
}
