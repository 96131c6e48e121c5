// Activities of an eval run (workflows/eval-run.ts): one case run end to end, and the run's end. A case
// is a session of the candidate revision with the case's input sent to it as any send is taken (in
// PostgreSQL, the session's workflow woken), waited for until its turn ends, then graded. Every step is
// idempotent on ids the case keeps (store/evals.ts, claimCaseIds), so an attempt retried after a worker
// died opens the same session, sends the message once and grades the same turn.
import { Context, CancelledFailure } from '@temporalio/activity';
import type { Db } from '../store/db.ts';
import type { Config } from '../lib/config.ts';
import { newId } from '../lib/ids.ts';
import { openSessionOnce } from '../store/sessions.ts';
import { takeSend } from '../store/session-inbox.ts';
import { abortTurnWithStart, wakeSessionWithStart } from '../clients/session.ts';
import {
  claimCaseIds,
  endCase,
  endRun,
  getCase,
  getRun,
  markEvalSession,
  runSummaries,
  ENDED_CASE,
  type RunSummary,
} from '../store/evals.ts';
import { turnTranscript } from '../store/eval-recordings.ts';
import { findAgentById } from '../store/agents.ts';
import { grade, type CaseOutcome } from './eval-graders.ts';
import { EVAL_LIMITS } from '../contract/operations/evals.ts';

/** How often a waiting case looks for its turn's end (and tells Temporal it is alive). */
const POLL_MS = 250;

interface TurnEnd {
  type: 'turn.completed' | 'turn.failed' | 'turn.aborted';
  costUsd: number | null;
  error: string | null;
  latencyMs: number;
}

async function turnEnd(db: Db, sessionId: string, messageId: string): Promise<TurnEnd | undefined> {
  const { rows } = await db.query<{ type: TurnEnd['type']; cost: number | null; error: string | null; latency_ms: number }>(
    `SELECT e.type, (e.data->>'costUsd')::float8 AS cost, e.data->>'error' AS error,
            (extract(epoch FROM e.at - m.created_at) * 1000)::int AS latency_ms
       FROM events e JOIN messages m ON m.session_id = e.session_id AND m.id = $2
      WHERE e.session_id = $1 AND e.type IN ('turn.completed', 'turn.failed', 'turn.aborted') AND e.data->>'turnId' = $2
      LIMIT 1`,
    [sessionId, messageId],
  );
  const row = rows[0];
  return row && { type: row.type, costUsd: row.cost, error: row.error, latencyMs: row.latency_ms };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function evalActivities(deps: { db: Db; config: Config; taskQueue: string }) {
  const { db } = deps;
  const sessionClient = () => ({ client: Context.current().client, taskQueue: deps.taskQueue, settings: deps.config.turns });

  return {
    /** Runs one case to its verdicts; a case that ended before (an earlier attempt) answers its status. */
    async runEvalCase(input: { runId: string; position: number }): Promise<{ status: string }> {
      const run = await getRun(db, input.runId);
      const found = await getCase(db, input.runId, input.position);
      if (!run || !found) return { status: 'error' };
      if (ENDED_CASE.has(found.status)) return { status: found.status };
      const { sessionId, messageId } = await claimCaseIds(db, run.id, found.position, { sessionId: newId('ses'), messageId: newId('msg') });
      const session = await openSessionOnce(db, { id: sessionId, userId: run.userId, agentId: run.agentId, revision: run.revision });
      // Before the message: the turn's first tool call must already find the recording it replays.
      await markEvalSession(db, {
        sessionId,
        runId: run.id,
        replayOf: run.replayTools === 'recorded' ? found.fromSessionId : null,
        unmatched: run.unmatched,
      });
      await takeSend(db, {
        sessionId,
        userId: run.userId,
        messageId,
        parts: [{ type: 'text', text: found.input }],
        ifBusy: 'queue',
        maxWaitingPerUser: deps.config.limits.queuedSendsPerUser,
      });
      const target = { id: session.id, userId: session.userId, agentId: session.agentId, revision: session.revision };
      await wakeSessionWithStart(sessionClient(), target, messageId);

      const context = Context.current();
      const deadline = Date.now() + EVAL_LIMITS.caseTimeoutMs;
      let end: TurnEnd | undefined;
      let timedOut = false;
      try {
        for (;;) {
          end = await turnEnd(db, sessionId, messageId);
          if (end) break;
          if (Date.now() > deadline) {
            timedOut = true;
            await abortTurnWithStart(sessionClient(), target, messageId);
            break;
          }
          context.heartbeat();
          await Promise.race([sleep(POLL_MS), context.cancelled.catch(() => undefined)]);
          if (context.cancellationSignal.aborted) throw new CancelledFailure('the eval run was cancelled');
        }
      } catch (error) {
        // Cancelled with its run: the case's turn stops too, and the case ends as cancelled.
        await abortTurnWithStart(sessionClient(), target, messageId).catch(() => undefined);
        await endCase(db, run.id, found.position, {
          status: 'cancelled',
          verdicts: [],
          transcript: null,
          costUsd: null,
          latencyMs: null,
          error: null,
        });
        throw error;
      }

      const transcript = await turnTranscript(db, sessionId, messageId);
      const outcome: CaseOutcome = {
        ended: timedOut ? 'timeout' : end!.type === 'turn.completed' ? 'completed' : end!.type === 'turn.failed' ? 'failed' : 'aborted',
        ...(end?.error ? { error: end.error } : {}),
        reply: transcript.reply,
        ...(transcript.json !== undefined ? { json: transcript.json } : {}),
        toolCalls: transcript.toolCalls,
        costUsd: end?.costUsd ?? null,
        latencyMs: end?.latencyMs ?? EVAL_LIMITS.caseTimeoutMs,
      };
      let status: 'passed' | 'failed' | 'error';
      let verdicts: ReturnType<typeof grade> = [];
      let error: string | null = null;
      try {
        verdicts = grade(outcome, found.expect ?? undefined, run.graders);
        status = verdicts.every((verdict) => verdict.passed) ? 'passed' : 'failed';
      } catch (failure) {
        status = 'error';
        error = `The case could not be graded: ${failure instanceof Error ? failure.message : String(failure)}`;
      }
      await endCase(db, run.id, found.position, {
        status,
        verdicts,
        transcript,
        costUsd: outcome.costUsd,
        latencyMs: outcome.latencyMs,
        error,
      });
      const ended = await getCase(db, run.id, found.position);
      return { status: ended?.status ?? status };
    },

    /** A case whose workflow failed for good: an error, with the reason, so the run can end. */
    async failEvalCase(input: { runId: string; position: number; error: string }): Promise<void> {
      await endCase(db, input.runId, input.position, {
        status: 'error',
        verdicts: [],
        transcript: null,
        costUsd: null,
        latencyMs: null,
        error: `The case could not be run: ${input.error}`.slice(0, 2000),
      });
    },

    /** The run's end: its status, and the summary its webhook event carries. */
    async endEvalRun(input: {
      runId: string;
      cancelled: boolean;
    }): Promise<{ userId: string; agentId: string; agentName: string; revision: number; summary: RunSummary }> {
      await endRun(db, input.runId, input.cancelled ? 'cancelled' : 'completed');
      const run = await getRun(db, input.runId);
      const none = { cases: 0, passed: 0, failed: 0, errors: 0, pending: 0, costUsd: 0 };
      // A run whose rows are gone (its agent's user deleted): nothing to report.
      if (!run) return { userId: '', agentId: '', agentName: '', revision: 0, summary: none };
      const summary = (await runSummaries(db, [run.id])).get(run.id) ?? none;
      const agent = await findAgentById(db, run.agentId);
      return { userId: run.userId, agentId: run.agentId, agentName: agent?.name ?? '', revision: run.revision, summary };
    },
  };
}
