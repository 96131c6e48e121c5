// A compaction calls a model as a step does, so it takes one of its user's RUNNING_TURNS_PER_USER places
// as a step does (step-queue.ts): asked with `mayQueue`, it answers `queued` without one, and its workflow
// (the turn's, or the session's for one asked for between turns) waits for a place and asks again. Wrapped
// around the compaction activity where the activities are assembled, so the compaction itself knows nothing of places.
import type { CompactionInput, CompactionResult, PlaceQueued } from '../../core/turn-types.ts';
import { compactionPlaceKey } from '../../core/place-keys.ts';
import { sessionWorkflowId, turnWorkflowId } from '../../lib/workflow-safe/workflow-ids.ts';
import { inUserPlace, wakeWaiter, type PlaceDeps, type StepQueueSettings } from './step-queue.ts';

/** A place lapses with a compaction's start-to-close timeout (workflows/turn.ts, workflows/session.ts). */
const COMPACTION_LEASE_MS = 15 * 60_000;

export function withCompactionPlaces<A extends { compactConversation(input: CompactionInput): Promise<CompactionResult> }>(
  deps: Omit<PlaceDeps, 'wake'> & { runningPerUser: number },
  activities: A,
): Omit<A, 'compactConversation'> & { compactConversation(input: CompactionInput): Promise<CompactionResult | PlaceQueued> } {
  const settings: StepQueueSettings = { limit: deps.runningPerUser, leaseMs: COMPACTION_LEASE_MS };
  const placeDeps = { db: deps.db, logger: deps.logger, wake: wakeWaiter };
  const compact = (input: CompactionInput) => activities.compactConversation(input);
  return {
    ...activities,
    compactConversation(input: CompactionInput): Promise<CompactionResult | PlaceQueued> {
      if (!input.mayQueue) return compact(input);
      const claim = {
        userId: input.userId,
        key: compactionPlaceKey(input.sessionId, input.summaryMessageId),
        workflowId:
          input.wakeWorkflowId ?? (input.turnId ? turnWorkflowId(input.sessionId, input.turnId) : sessionWorkflowId(input.sessionId)),
        ...(input.turnId ? { waitingTurn: { sessionId: input.sessionId, turnId: input.turnId } } : {}),
      };
      return inUserPlace<CompactionResult | PlaceQueued>(
        placeDeps,
        settings,
        claim,
        () => compact(input),
        () => ({ queued: true }),
      );
    },
  };
}
