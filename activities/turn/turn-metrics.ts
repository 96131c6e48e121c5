// Records a turn's metrics from the activities that see its moments (lib/metrics/worker-metrics.ts).
// A turn's age is measured by the database's clock from its turn.started event, so it is right
// whichever worker started the turn and whichever runs this step.
import type { Db, DbClient } from '../../store/db.ts';
import type { TokenUsage } from '../../contract/events.ts';
import { turnAgeSeconds } from '../../store/metric-reads.ts';
import { modelCostUsd, modelTokens, turnDuration, turnFirstToken } from '../../lib/metrics/worker-metrics.ts';

/**
 * Observed in the background: the stream goes on while the age is read. `startedAt` (performance.now()
 * just before this worker wrote the turn's turn.started) times it on this clock instead, with no query.
 */
export function recordFirstToken(db: Db, sessionId: string, turnId: string, startedAt?: number): void {
  if (startedAt !== undefined) {
    turnFirstToken.observe((performance.now() - startedAt) / 1000);
    return;
  }
  turnAgeSeconds(db, sessionId, turnId).then(
    (age) => {
      if (age !== undefined) turnFirstToken.observe(age);
    },
    () => undefined,
  );
}

/**
 * Reads the turn's age inside the transaction that writes its terminal event (so a rerun that finds
 * the turn ended records nothing); the returned function observes it once that transaction commits.
 */
export async function turnEnd(
  client: DbClient,
  sessionId: string,
  turnId: string,
  outcome: 'completed' | 'failed' | 'aborted',
): Promise<() => void> {
  const age = await turnAgeSeconds(client, sessionId, turnId);
  return () => {
    if (age !== undefined) turnDuration.observe({ outcome }, age);
  };
}

export function recordStepUsage(providerId: string, usage: TokenUsage, costUsd: number | null): void {
  modelTokens.inc({ provider: providerId, kind: 'input' }, usage.inputTokens);
  modelTokens.inc({ provider: providerId, kind: 'output' }, usage.outputTokens);
  if (costUsd !== null) modelCostUsd.inc({ provider: providerId }, costUsd);
}

/** A turn's duration, when the transaction that ended it read its age (a model step completing it). */
export function recordTurnDuration(outcome: 'completed' | 'failed' | 'aborted', ageSeconds: number): void {
  turnDuration.observe({ outcome }, ageSeconds);
}
