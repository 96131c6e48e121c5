// A user's running turns share the workers with everyone else's: a model step takes one of its user's
// RUNNING_TURNS_PER_USER places (store/step-slots.ts) before it calls the model, and gives it back when
// it ends. Without a place the step does not run: the turn says so once (`turn.queued`) and its
// workflow asks again a moment later, so one user starting hundreds of turns holds at most that many
// of the workers' activity slots, and other users' turns start as they would.
import { appendEvents } from '../../store/events.ts';
import { inTransaction, type Db } from '../../store/db.ts';
import { acquireStepSlot, releaseStepSlot } from '../../store/step-slots.ts';
import type { ModelStepInput, StepResult } from '../../workflows/turn-types.ts';

export interface StepQueueSettings {
  limit: number;
  /** How long a place outlives a worker that died holding it: the step's start-to-close timeout. */
  leaseMs: number;
}

/** Runs `step` in one of its user's places; without one, records that the turn waits and returns `queued`. */
export async function inStepSlot(
  db: Db,
  settings: StepQueueSettings,
  input: ModelStepInput,
  step: () => Promise<StepResult>,
): Promise<StepResult> {
  if (!input.mayQueue) return step();
  const key = `${input.sessionId}:${input.messageId}`;
  if (!(await acquireStepSlot(db, { userId: input.userId, key, limit: settings.limit, leaseMs: settings.leaseMs }))) {
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
    // A place not given back (the database gone meanwhile) lapses with its lease.
    await releaseStepSlot(db, key).catch(() => undefined);
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
