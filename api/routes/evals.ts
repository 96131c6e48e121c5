// Eval runs (docs/evals.md): started against a revision with written cases or recorded sessions, read
// with every case's verdicts and transcripts, listed per agent, cancelled. The cases and their checks are
// validated here, before anything runs: a pattern RE2 cannot run or a schema that does not compile is a
// 400 at its place, and a recorded session must be one of this agent's with a message to replay.
import { OPERATIONS } from '../../contract/operations/index.ts';
import { EVAL_LIMITS, type EvalRunBody, type Expectation } from '../../contract/operations/evals.ts';
import { defineRoute } from '../route.ts';
import type { ApiDeps } from '../context.ts';
import { loadOwnedAgent } from '../agents/owned-agent.ts';
import { newId } from '../../lib/ids.ts';
import { NotFoundError, ValidationError } from '../../lib/workflow-safe/errors.ts';
import { refuseUnknownJudges, refuseUnrunnableChecks } from '../evals/expectations.ts';
import { getSet } from '../../store/eval-sets.ts';
import { getSession } from '../../store/sessions.ts';
import { recordedCase } from '../../store/eval-recordings.ts';
import {
  createRun,
  getRun,
  listCases,
  endRun,
  listRuns,
  runSummaries,
  averageTurnCost,
  type EvalCase,
  type EvalRun,
  type NewCase,
  type RunSummary,
} from '../../store/evals.ts';
import { callTemporal } from '../temporal-call.ts';
import { cancelEvalRunWorkflow } from '../../clients/eval-run.ts';
import { startRunNow } from '../evals/start-late.ts';
import { findAgentById } from '../../store/agents.ts';
import { acceptsEventStream } from '../streaming/sse.ts';
import { streamRunProgress } from '../evals/progress-stream.ts';

/** Runs GET /agent/<name>/evals lists, newest first. */
const RUNS_LISTED = 100;

function runView(run: EvalRun, agentName: string, summary: RunSummary | undefined) {
  return {
    id: run.id,
    agent: agentName,
    revision: run.revision,
    set: run.set,
    status: run.status,
    replayTools: run.replayTools,
    concurrency: run.concurrency,
    summary: summary ?? { cases: 0, passed: 0, failed: 0, errors: 0, cancelled: 0, pending: 0, costUsd: 0 },
    createdAt: run.createdAt.toISOString(),
    endedAt: run.endedAt?.toISOString() ?? null,
  };
}

function caseView(evalCase: EvalCase) {
  const ended = evalCase.status === 'passed' || evalCase.status === 'failed';
  return {
    id: evalCase.position,
    status: evalCase.status,
    passed: ended ? evalCase.status === 'passed' : null,
    input: evalCase.input,
    verdicts: evalCase.verdicts,
    transcript: evalCase.transcript,
    baseline: evalCase.baseline,
    sessionId: evalCase.sessionId,
    fromSessionId: evalCase.fromSessionId,
    costUsd: evalCase.costUsd,
    latencyMs: evalCase.latencyMs,
    error: evalCase.error,
  };
}

export function evalRoutes(deps: ApiDeps) {
  /** The caller's run; another user's is simply not found. */
  async function ownRun(userId: string, runId: string): Promise<EvalRun> {
    const run = await getRun(deps.db, runId);
    if (!run || run.userId !== userId) throw new NotFoundError(`You have no eval run "${runId}"`);
    return run;
  }

  /** The cases of the body: written ones, a stored set's, or recorded sessions' first turns with their baselines. */
  async function casesOf(
    body: EvalRunBody,
    agent: { id: string; userId: string; name: string },
  ): Promise<{ cases: NewCase[]; set?: { name: string; version: number } }> {
    const given = [body.cases, body.set, body.fromSessions].filter((source) => source !== undefined).length;
    if (given !== 1)
      throw new ValidationError('Give one of cases, set and fromSessions', [
        { path: '', message: 'needs exactly one of cases, set and fromSessions' },
      ]);
    refuseUnrunnableChecks(body.cases ?? [], body.expect);
    refuseUnknownJudges(body.graders);
    // The shared `expect` checks every case that brings none of its own.
    const withShared = (written: { input: string; expect?: Expectation }): NewCase => {
      const expect = written.expect ?? body.expect;
      return { input: written.input, ...(expect ? { expect } : {}) };
    };
    if (body.cases) return { cases: body.cases.map(withShared) };
    if (body.set) {
      const [name, version] = body.set.split('@') as [string, string | undefined];
      const stored = await getSet(deps.db, agent.userId, name, version === undefined ? undefined : Number(version));
      if (!stored) throw new NotFoundError(`You have no eval set "${body.set}"`);
      return { cases: stored.cases.map(withShared), set: { name: stored.name, version: stored.version } };
    }
    const cases: NewCase[] = [];
    for (const [index, sessionId] of body.fromSessions!.entries()) {
      const session = await getSession(deps.db, sessionId);
      if (!session || session.userId !== agent.userId || session.agentId !== agent.id)
        throw new NotFoundError(`"${sessionId}" is not a session of the agent "${agent.name}"`);
      const recorded = await recordedCase(deps.db, sessionId);
      if (!recorded)
        throw new ValidationError(`The session "${sessionId}" has no message to replay`, [
          { path: `/fromSessions/${index}`, message: 'has no user message' },
        ]);
      cases.push({
        input: recorded.input,
        fromSessionId: sessionId,
        baseline: recorded.baseline,
        ...(body.expect ? { expect: body.expect } : {}),
      });
    }
    return { cases };
  }

  /** Each case a turn at the cost of the agent's recent turns, on average. */
  async function estimateOf(agentId: string, cases: number): Promise<{ costUsd: number | null; basis: string }> {
    const average = await averageTurnCost(deps.db, agentId);
    if (!average) return { costUsd: null, basis: 'The agent has no turns yet to estimate from' };
    const each = average.costUsd;
    return {
      costUsd: Number((each * cases).toFixed(6)),
      basis: `${cases} turns at USD ${each.toFixed(6)} each, the average over ${average.turns} turns of the agent's latest sessions; rubric judges not included`,
    };
  }

  return [
    defineRoute(OPERATIONS.createEvalRun, {
      async handle({ req, body, params, principal }) {
        const agent = await loadOwnedAgent(deps.db, principal!.userId, params.name!);
        const revision = body.revision ?? agent.revision;
        if (revision > agent.latestRevision)
          throw new NotFoundError(`Agent "${agent.name}" has no revision ${revision} (its latest is ${agent.latestRevision})`);
        const { cases, set } = await casesOf(body, agent);
        const estimate = await estimateOf(agent.id, cases.length);
        if (body.estimate) return { status: 200, body: { cases: cases.length, estimate } };
        const id = newId('evl');
        const concurrency = Math.min(body.concurrency ?? 4, EVAL_LIMITS.maxConcurrency);
        await createRun(deps.db, {
          id,
          userId: agent.userId,
          agentId: agent.id,
          revision,
          replayTools: body.replayTools ?? (body.fromSessions ? 'recorded' : 'live'),
          unmatched: body.unmatched ?? 'error',
          concurrency,
          graders: body.graders ?? [],
          set: set ?? null,
          keyId: principal!.keyId,
          maxRunning: deps.config.limits.evalRunsPerUser,
          cases,
        });
        // Recorded, the run is taken: a workflow engine that does not answer now delays it to the next
        // housekeeping pass (api/evals/start-late.ts), and never answers 503 for a run that exists.
        const input = { runId: id, userId: agent.userId, agentId: agent.id, cases: cases.length, concurrency };
        if (await startRunNow(deps, input))
          req.log.info({ evalId: id, agentId: agent.id, revision, cases: cases.length }, 'eval run started');
        return { status: 202, body: { id, cases: cases.length, estimate } };
      },
    }),
    defineRoute(OPERATIONS.getEvalRun, {
      holdsConnection: acceptsEventStream,
      async handle({ req, res, params, principal }) {
        const run = await ownRun(principal!.userId, params.id!);
        if (acceptsEventStream(req)) {
          const agentName = (await findAgentById(deps.db, run.agentId))?.name ?? run.agentId;
          await streamRunProgress({
            res,
            db: deps.db,
            runId: run.id,
            heartbeatMs: deps.config.limits.sseHeartbeatMs,
            log: req.log,
            runView: (current, summary) => runView(current, agentName, summary),
            caseView,
          });
          return undefined;
        }
        const [cases, summaries, agent] = await Promise.all([
          listCases(deps.db, run.id),
          runSummaries(deps.db, [run.id]),
          findAgentById(deps.db, run.agentId),
        ]);
        return { status: 200, body: { ...runView(run, agent?.name ?? run.agentId, summaries.get(run.id)), cases: cases.map(caseView) } };
      },
    }),
    defineRoute(OPERATIONS.listEvalRuns, {
      async handle({ params, principal }) {
        const agent = await loadOwnedAgent(deps.db, principal!.userId, params.name!);
        const runs = await listRuns(deps.db, agent.id, RUNS_LISTED);
        const summaries = await runSummaries(
          deps.db,
          runs.map((run) => run.id),
        );
        return { status: 200, body: { runs: runs.map((run) => runView(run, agent.name, summaries.get(run.id))) } };
      },
    }),
    defineRoute(OPERATIONS.cancelEvalRun, {
      async handle({ req, params, principal }) {
        const run = await ownRun(principal!.userId, params.id!);
        // A run whose workflow never started ends here: the housekeeping pass must not start it later.
        if (run.status === 'running' && !run.started) await endRun(deps.db, run.id, 'cancelled');
        if (run.status === 'running') await callTemporal(deps, () => cancelEvalRunWorkflow(deps.temporal.client, run.id));
        req.log.info({ evalId: run.id }, 'eval run cancel asked');
        return { status: 202, body: { id: run.id } };
      },
    }),
  ];
}
