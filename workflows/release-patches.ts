// The patches release 0.1.0 asked with `patched()`, each now `deprecatePatch()`ed where 0.1.0 asked it.
// Every run 0.1.0 started took their new branch and recorded their marker; the old branches (histories
// from before 0.1.0, never a user's) are gone. A history with such a marker replays only on code that
// still asks for it at that point, so the calls stay through this release, which must replay the runs
// 0.1.0 left open (an approval waits up to 30 days); the release after it removes this file and every
// call (docs/operating.md, "Upgrades and workflow versions"), and the step result's fields only 0.1.0's
// workflow code reads (StepResult.turnStarted and .policies, core/turn-types.ts).
export const PATCHES_OF_0_1_0 = {
  /** Session, every run: a turn's end waits for the sends being recorded; a run holds 25 turns. */
  settledSendsShortRuns: 'settled-sends-short-runs',
  /** Session, every run: its turns run in the session workflow, not as child workflows. */
  turnsInSession: 'turns-in-session',
  /** Session, a completed turn with turns queued behind it: it reads its end's seq to tell idleness. */
  idleAtTurnEnd: 'idle-at-turn-end',
  /** Session, a run past BYTES_PER_RUN: it continues as new. */
  continueBySize: 'continue-by-size',
  /** Turn, every turn: its model steps write turn.started and turn.completed. */
  turnEventsBySteps: 'turn-events-by-steps',
  /** Turn, a step that asks for compaction: the turn compacts and runs the step again. */
  compaction: 'compaction',
  /** Turn, a step with calls a tool policy asks about: its calls run at once. */
  toolApprovals: 'tool-approvals',
  /** Turn, cancelled: it tells the worker streaming its step (a local activity). */
  abortNotices: 'abort-notices',
  /** Client tools, an answer by Update: announced by an activity scheduled with the Update's acceptance. */
  toolResultAfterAcceptance: 'tool-result-after-acceptance',
  /** Client tools, a wait that times out: its calls are closed in PostgreSQL first. */
  clientAnswersInPostgres: 'client-answers-in-postgres',
  /** Approval, an answer by Update: written by an activity scheduled with the Update's acceptance. */
  answerAfterAcceptance: 'answer-after-acceptance',
  /** Session, a completed turn whose step found no subscription to session.completed: nothing is published. */
  unsubscribedCompletion: 'unsubscribed-completion',
} as const;
