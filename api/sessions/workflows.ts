// The API's side of the session workflow for what needs its verdict: a compaction is an Update-with-Start
// (starting the session's workflow if it is not running). Sends need none: they are taken in PostgreSQL
// (api/sessions/send.ts); nor do reverts and regenerations (api/routes/session-history.ts), nor an abort
// of a turn PostgreSQL shows (a signal).
// The API never runs a turn itself. Every call has a deadline (api/temporal-call.ts): an Update waits
// for a worker, so with none running it answers 503 rather than hold the request forever.
import { randomUUID } from 'node:crypto';
import { abortRunningTurn, abortTurnWithStart, compactUpdate, updateSessionWithStart, type SessionClient } from '../../clients/session.ts';
import { turnToAbort } from '../../store/session-inbox.ts';
import { runningRunOfSession } from '../../store/workflow-runs.ts';
import { callTemporal } from '../temporal-call.ts';
import type { UpdateDefinition } from '@temporalio/common';

import type { ApiDeps } from '../context.ts';
import type { CompactionResult } from '../../core/turn-types.ts';
import type { Session } from '../../store/sessions.ts';
import { FAILURE } from '../../lib/workflow-safe/failures.ts';
import { failureProblem } from '../failure-problems.ts';

// A deadline that expires, or a connection that drops, says nothing about whether Temporal took the
// call: it may be in the workflow's history already. So a 503 of a call that acts says the outcome is
// unknown, and how to retry without doing it twice.

export function sessionClient(deps: Pick<ApiDeps, 'temporal' | 'config'>): SessionClient {
  return { client: deps.temporal.client, taskQueue: deps.config.taskQueue, settings: deps.config.turns };
}

/**
 * How long the API waits for an asked-for compaction: a model call that summarises the conversation,
 * retried as a step is. Past it the request answers 503, and the compaction may still complete.
 */
export const COMPACTION_WAIT_MS = 5 * 60_000;

/** Compacts the conversation now, in order with the session's sends (refused while a turn runs or waits). */
export function compactInSession(deps: ApiDeps, session: Session): Promise<CompactionResult> {
  return updateWithStart(
    deps,
    session,
    compactUpdate,
    [],
    `compact:${randomUUID()}`,
    {
      busy: 'A turn is running or queued in this session; try again when it has ended',
      unavailable:
        'The session did not confirm the compaction in time (are the workers running?): it may still complete. ' +
        `Its \`session.compacted\` event (GET /session/${session.id}/events) says when it has`,
    },
    COMPACTION_WAIT_MS,
  );
}

async function updateWithStart<Ret, Args extends unknown[]>(
  deps: ApiDeps,
  session: Session,
  update: UpdateDefinition<Ret, Args>,
  args: Args,
  /** The same on every retry of one request, so Temporal applies the Update once however often it is sent. */
  updateId: string,
  messages: { busy: string; unavailable: string },
  timeoutMs?: number,
): Promise<Ret> {
  try {
    return await callTemporal(deps, () => updateSessionWithStart(sessionClient(deps), session, update, args, updateId), {
      unavailable: messages.unavailable,
      ...(timeoutMs ? { timeoutMs } : {}),
    });
  } catch (error) {
    // A busy session (the Update's validator), or a compaction a revert overtook.
    throw failureProblem(error, { [FAILURE.sessionBusy]: messages.busy }) ?? error;
  }
}

/**
 * Aborts the session's running turn (or, before it starts, its first waiting one): true when there was
 * one. PostgreSQL says which turn that is, and the abort goes to the session's workflow as a signal the
 * engine takes with no worker running; the turn ends `turn.aborted` once a worker runs it (a turn that
 * ends meanwhile ends as it would have). A turn PostgreSQL does not show (one that came by a trigger,
 * before its first step), or a session a workflow run drives, is asked of the workflow itself, which then
 * needs a worker.
 */
export async function abortSession(deps: ApiDeps, session: Session): Promise<boolean> {
  // A workflow run's turns are not the session workflow's: only the workflow's own verdict is asked, as before.
  const turnId = (await runningRunOfSession(deps.db, session.id)) ? undefined : await turnToAbort(deps.db, session.id);
  if (turnId === undefined) {
    return callTemporal(deps, () => abortRunningTurn(deps.temporal.client, session.id), {
      unavailable: 'The session did not confirm the abort in time (are the workers running?); try again shortly',
    });
  }
  await abortTurn(deps, session, turnId);
  return true;
}

/** Aborts one turn, running or still queued, by its id: a signal the engine takes without a worker. */
export async function abortTurn(deps: ApiDeps, session: Session, turnId: string): Promise<void> {
  await callTemporal(deps, () => abortTurnWithStart(sessionClient(deps), session, turnId), {
    unavailable: 'The workflow engine did not take the abort in time; asking again is safe',
  });
}
