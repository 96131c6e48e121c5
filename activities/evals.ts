// Activities of an eval run (workflows/eval-run.ts), each short: a case started (a session of the
// candidate revision, the case's input sent to it as any send is taken, the session's workflow woken), a
// case checked (its turn ended: graded; past its time: aborted and graded), a case cancelled or failed
// (its turn aborted), and the run's end. The case's workflow waits between checks on timers, holding no
// worker slot. Every step is idempotent on ids the case keeps (store/evals.ts, claimCaseIds): an attempt
// retried after a worker died opens the same session, sends the message once and grades the same turn.
import { Context } from '@temporalio/activity';
import type { Db } from '../store/db.ts';
import { newId } from '../lib/ids.ts';
import { getSession, openSessionOnce } from '../store/sessions.ts';
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
  type CaseStatus,
  type EvalCase,
  type EvalRun,
  type RunSummary,
} from '../store/evals.ts';
import { turnTranscript } from '../store/eval-recordings.ts';
import { findAgentById } from '../store/agents.ts';
import { grade, type CaseOutcome } from './eval-graders.ts';
import { judgeCase, judgeRequestText, type JudgeDeps } from './eval-judge.ts';
import { EVAL_LIMITS, type Verdict } from '../contract/operations/evals.ts';
import type { Bundle } from '../contract/bundle.ts';

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

type CaseRef = { runId: string; position: number };
/** `judge`: the turn completed and a rubric judge is to grade it (judgeEvalCase). */
export type CaseStep = { ended: true; status: CaseStatus } | { ended: false; judge?: true };

const hasRubric = (run: EvalRun) => run.graders.some((grader) => grader.kind === 'rubric');

export function evalActivities(deps: JudgeDeps & { taskQueue: string; bundleOf: (agentId: string, revision: number) => Promise<Bundle> }) {
  const { db } = deps;
  const sessionClient = () => ({ client: Context.current().client, taskQueue: deps.taskQueue, settings: deps.config.turns });

  async function load(input: CaseRef): Promise<{ run: EvalRun; found: EvalCase } | undefined> {
    const [run, found] = await Promise.all([getRun(db, input.runId), getCase(db, input.runId, input.position)]);
    return run && found ? { run, found } : undefined;
  }

  /** The case's turn stopped, when it was sent (a turn that ended already ignores it). */
  async function abortTurnOf(found: EvalCase): Promise<void> {
    if (!found.sessionId || !found.messageId) return;
    const session = await getSession(db, found.sessionId);
    if (!session) return;
    const target = { id: session.id, userId: session.userId, agentId: session.agentId, revision: session.revision };
    await abortTurnWithStart(sessionClient(), target, found.messageId);
  }

  /** Grades the ended turn (or the one past its time) and ends the case; the first end written stands. */
  async function gradeCase(
    run: EvalRun,
    found: EvalCase,
    end: TurnEnd | undefined,
    judged?: (outcome: CaseOutcome) => Promise<{ verdicts: Verdict[]; costUsd: number }>,
  ): Promise<CaseStatus> {
    const transcript = await turnTranscript(db, found.sessionId!, found.messageId!);
    const outcome: CaseOutcome = {
      ended: !end ? 'timeout' : end.type === 'turn.completed' ? 'completed' : end.type === 'turn.failed' ? 'failed' : 'aborted',
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
    let costUsd = outcome.costUsd;
    try {
      verdicts = grade(outcome, found.expect ?? undefined, run.graders);
      status = verdicts.every((verdict) => verdict.passed) ? 'passed' : 'failed';
    } catch (failure) {
      status = 'error';
      error = `The case could not be graded: ${failure instanceof Error ? failure.message : String(failure)}`;
    }
    // Outside the catch: a judge's failure that is not a verdict (its provider failing for a while, the
    // database, a cancel) retries or ends the activity rather than the case.
    if (judged && status !== 'error') {
      const judges = await judged(outcome);
      verdicts.push(...judges.verdicts);
      // The case's cost is its turn's and its judges': both count in the budgets.
      if (judges.costUsd > 0) costUsd = (costUsd ?? 0) + judges.costUsd;
      if (judges.verdicts.some((verdict) => !verdict.passed)) status = 'failed';
    }
    await endCase(db, run.id, found.position, {
      status,
      verdicts,
      transcript,
      costUsd,
      latencyMs: outcome.latencyMs,
      error,
    });
    return (await getCase(db, run.id, found.position))?.status ?? status;
  }

  return {
    /** Opens the case's session and sends its input; a case that ended before (an earlier attempt) answers its status. */
    async startEvalCase(input: CaseRef): Promise<CaseStep> {
      const loaded = await load(input);
      if (!loaded) return { ended: true, status: 'error' };
      const { run, found } = loaded;
      if (ENDED_CASE.has(found.status)) return { ended: true, status: found.status };
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
      return { ended: false };
    },

    /** Whether the case's turn has ended (then it is graded); past its time (`timedOut`), it is aborted and graded so. */
    async checkEvalCase(input: CaseRef & { timedOut: boolean }): Promise<CaseStep> {
      const loaded = await load(input);
      if (!loaded) return { ended: true, status: 'error' };
      const { run, found } = loaded;
      if (ENDED_CASE.has(found.status)) return { ended: true, status: found.status };
      const end = await turnEnd(db, found.sessionId!, found.messageId!);
      if (!end && !input.timedOut) return { ended: false };
      if (!end) await abortTurnOf(found);
      // A completed reply a rubric is to judge: a model call, in an activity of its own with a longer time.
      if (end?.type === 'turn.completed' && hasRubric(run)) return { ended: false, judge: true };
      return { ended: true, status: await gradeCase(run, found, end) };
    },

    /** Grades a completed case with its rubric judges (eval-judge.ts) as well as its checks, and ends it. */
    async judgeEvalCase(input: CaseRef): Promise<CaseStep> {
      const loaded = await load(input);
      if (!loaded) return { ended: true, status: 'error' };
      const { run, found } = loaded;
      if (ENDED_CASE.has(found.status)) return { ended: true, status: found.status };
      const end = await turnEnd(db, found.sessionId!, found.messageId!);
      const context = Context.current();
      const bundle = await deps.bundleOf(run.agentId, run.revision);
      // Verdicts of judges an earlier attempt finished come back with its heartbeats: a retry asks (and pays)
      // only the rest. They travel without their prompts (tens of KB each, rebuilt from the case and grader).
      const done = (context.info.heartbeatDetails as Verdict[] | undefined) ?? [];
      const beat = (verdicts: Verdict[]) =>
        context.heartbeat(verdicts.map((verdict) => (verdict.judge ? { ...verdict, judge: { ...verdict.judge, prompt: '' } } : verdict)));
      const judged = async (outcome: CaseOutcome) => {
        const rubrics = run.graders.flatMap((grader, index) => (grader.kind === 'rubric' ? [{ grader, index }] : []));
        const verdicts: Verdict[] = done.map((verdict, position) =>
          verdict.judge
            ? { ...verdict, judge: { ...verdict.judge, prompt: judgeRequestText(rubrics[position]!.grader, found.input, outcome) } }
            : verdict,
        );
        for (const { grader, index } of rubrics.slice(done.length)) {
          const verdict = await judgeCase(deps, {
            userId: run.userId,
            agentId: run.agentId,
            sessionId: found.sessionId!,
            callId: `${run.id}:${found.position}:${index}`,
            execution: `${context.info.activityId}:${context.info.attempt}`,
            bundle,
            grader,
            input: found.input,
            outcome,
            signal: context.cancellationSignal,
            heartbeat: () => beat(verdicts),
          });
          verdicts.push(verdict);
          beat(verdicts);
        }
        return { verdicts, costUsd: verdicts.reduce((sum, verdict) => sum + (verdict.judge?.costUsd ?? 0), 0) };
      };
      return { ended: true, status: await gradeCase(run, found, end, judged) };
    },

    /** The run was cancelled: the case's turn stops, and the case ends cancelled (unless it ended first). */
    async cancelEvalCase(input: CaseRef): Promise<void> {
      const loaded = await load(input);
      if (!loaded || ENDED_CASE.has(loaded.found.status)) return;
      await abortTurnOf(loaded.found);
      await endCase(db, input.runId, input.position, {
        status: 'cancelled',
        verdicts: [],
        transcript: null,
        costUsd: null,
        latencyMs: null,
        error: null,
      });
    },

    /** A case whose workflow failed for good: its turn stops, and it is an error with the reason, so the run can end. */
    async failEvalCase(input: CaseRef & { error: string }): Promise<void> {
      const loaded = await load(input);
      if (!loaded || ENDED_CASE.has(loaded.found.status)) return;
      await abortTurnOf(loaded.found);
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
      const none = { cases: 0, passed: 0, failed: 0, errors: 0, cancelled: 0, pending: 0, costUsd: 0 };
      // A run whose rows are gone (its agent's user deleted): nothing to report.
      if (!run) return { userId: '', agentId: '', agentName: '', revision: 0, summary: none };
      const summary = (await runSummaries(db, [run.id])).get(run.id) ?? none;
      const agent = await findAgentById(db, run.agentId);
      return { userId: run.userId, agentId: run.agentId, agentName: agent?.name ?? '', revision: run.revision, summary };
    },
  };
}
