// Eval runs and their cases (schema/migrations/0044_evals.sql). A case's session and message ids are
// chosen once, by whichever attempt of its activity gets there first, so a retried case opens one
// session and sends one message. A case ends once: the first result written stands.
import type { Db, DbClient } from './db.ts';
import { RateLimitedError } from '../lib/workflow-safe/errors.ts';
import { inTransaction } from './db.ts';
import type { Expectation, GraderSpec, Verdict } from '../contract/operations/evals.ts';
import type { Transcript } from '../lib/evals/transcript.ts';

export type { Transcript };

export type RunStatus = 'running' | 'completed' | 'cancelled';
export type CaseStatus = 'pending' | 'running' | 'passed' | 'failed' | 'error' | 'cancelled';
export const ENDED_CASE: ReadonlySet<CaseStatus> = new Set(['passed', 'failed', 'error', 'cancelled']);

export interface EvalRun {
  id: string;
  userId: string;
  agentId: string;
  revision: number;
  status: RunStatus;
  replayTools: 'recorded' | 'live';
  unmatched: 'error' | 'live';
  concurrency: number;
  graders: GraderSpec[];
  /** The stored set its cases came from. */
  set: { name: string; version: number } | null;
  /** Its workflow is known to run (false: the housekeeping pass starts it). */
  started: boolean;
  createdAt: Date;
  endedAt: Date | null;
}

export interface EvalCase {
  position: number;
  input: string;
  expect: Expectation | null;
  fromSessionId: string | null;
  baseline: Transcript | null;
  sessionId: string | null;
  messageId: string | null;
  status: CaseStatus;
  verdicts: Verdict[];
  transcript: Transcript | null;
  costUsd: number | null;
  latencyMs: number | null;
  error: string | null;
}

interface RunRow {
  id: string;
  user_id: string;
  agent_id: string;
  revision: number;
  status: RunStatus;
  replay_tools: 'recorded' | 'live';
  unmatched: 'error' | 'live';
  concurrency: number;
  graders: GraderSpec[];
  set_name: string | null;
  set_version: number | null;
  started_at: Date | null;
  created_at: Date;
  ended_at: Date | null;
}

interface CaseRow {
  position: number;
  input: string;
  expect: Expectation | null;
  from_session_id: string | null;
  baseline: Transcript | null;
  session_id: string | null;
  message_id: string | null;
  status: CaseStatus;
  verdicts: Verdict[];
  transcript: Transcript | null;
  cost_usd: number | null;
  latency_ms: number | null;
  error: string | null;
}

const toRun = (row: RunRow): EvalRun => ({
  id: row.id,
  userId: row.user_id,
  agentId: row.agent_id,
  revision: row.revision,
  status: row.status,
  replayTools: row.replay_tools,
  unmatched: row.unmatched,
  concurrency: row.concurrency,
  graders: row.graders,
  set: row.set_name === null || row.set_version === null ? null : { name: row.set_name, version: row.set_version },
  started: row.started_at !== null,
  createdAt: row.created_at,
  endedAt: row.ended_at,
});

const toCase = (row: CaseRow): EvalCase => ({
  position: row.position,
  input: row.input,
  expect: row.expect,
  fromSessionId: row.from_session_id,
  baseline: row.baseline,
  sessionId: row.session_id,
  messageId: row.message_id,
  status: row.status,
  verdicts: row.verdicts,
  transcript: row.transcript,
  costUsd: row.cost_usd,
  latencyMs: row.latency_ms,
  error: row.error,
});

export interface NewCase {
  input: string;
  expect?: Expectation;
  fromSessionId?: string;
  baseline?: Transcript;
}

export async function createRun(
  db: Db,
  run: Omit<EvalRun, 'status' | 'started' | 'createdAt' | 'endedAt'> & { keyId: string | null; cases: NewCase[]; maxRunning: number },
): Promise<void> {
  await inTransaction(db, async (client) => {
    // One user's runs at once, counted under a lock of the user's, so two requests cannot both be the last.
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`eval-runs:${run.userId}`]);
    const { rows: running } = await client.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM eval_runs WHERE user_id = $1 AND status = 'running'`,
      [run.userId],
    );
    if (running[0]!.n >= run.maxRunning)
      throw new RateLimitedError(
        `You have ${running[0]!.n} eval runs running, as many as EVAL_RUNS_PER_USER allows; wait for one to end`,
        30,
      );
    await client.query(
      `INSERT INTO eval_runs (id, user_id, agent_id, revision, replay_tools, unmatched, concurrency, graders, set_name, set_version, key_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
      [
        run.id,
        run.userId,
        run.agentId,
        run.revision,
        run.replayTools,
        run.unmatched,
        run.concurrency,
        JSON.stringify(run.graders),
        run.set?.name ?? null,
        run.set?.version ?? null,
        run.keyId,
      ],
    );
    await client.query(
      `INSERT INTO eval_cases (run_id, position, input, expect, from_session_id, baseline)
       SELECT $1, c.ordinality - 1, c.value->>'input', c.value->'expect', c.value->>'fromSessionId', c.value->'baseline'
         FROM jsonb_array_elements($2::jsonb) WITH ORDINALITY AS c`,
      [run.id, JSON.stringify(run.cases)],
    );
    // The service tool calls the replayed recordings made, with their results, for matching (store/eval-recordings.ts).
    const replayed = run.replayTools === 'recorded' ? run.cases.flatMap((each) => (each.fromSessionId ? [each.fromSessionId] : [])) : [];
    if (replayed.length > 0)
      await client.query(
        `INSERT INTO eval_recorded_calls (run_id, session_id, seq, tool_name, input, output, is_error)
         SELECT $1, c.session_id, c.seq, c.data->>'toolName', c.data->'input', r.data->'output', coalesce((r.data->>'isError')::boolean, false)
           FROM events c
           JOIN LATERAL (SELECT data FROM events r WHERE r.session_id = c.session_id AND r.type = 'tool.result'
                           AND r.data->>'toolCallId' = c.data->>'toolCallId' AND r.seq > c.seq ORDER BY r.seq LIMIT 1) r ON true
          WHERE c.session_id = ANY($2) AND c.type = 'tool.call'`,
        [run.id, replayed],
      );
  });
}

export async function getRun(db: Db | DbClient, runId: string): Promise<EvalRun | undefined> {
  const { rows } = await db.query<RunRow>('SELECT * FROM eval_runs WHERE id = $1', [runId]);
  return rows[0] && toRun(rows[0]);
}

export async function listCases(db: Db, runId: string): Promise<EvalCase[]> {
  const { rows } = await db.query<CaseRow>('SELECT * FROM eval_cases WHERE run_id = $1 ORDER BY position', [runId]);
  return rows.map(toCase);
}

/** The positions of the run's cases that have ended: what a progress stream looks at between reads. */
export async function endedPositions(db: Db, runId: string): Promise<number[]> {
  const { rows } = await db.query<{ position: number }>(
    `SELECT position FROM eval_cases WHERE run_id = $1 AND status IN ('passed', 'failed', 'error', 'cancelled') ORDER BY position`,
    [runId],
  );
  return rows.map((row) => row.position);
}

/** The run's cases at these positions, in position order. */
export async function casesAt(db: Db, runId: string, positions: readonly number[]): Promise<EvalCase[]> {
  const { rows } = await db.query<CaseRow>('SELECT * FROM eval_cases WHERE run_id = $1 AND position = ANY($2) ORDER BY position', [
    runId,
    positions,
  ]);
  return rows.map(toCase);
}

export async function getCase(db: Db, runId: string, position: number): Promise<EvalCase | undefined> {
  const { rows } = await db.query<CaseRow>('SELECT * FROM eval_cases WHERE run_id = $1 AND position = $2', [runId, position]);
  return rows[0] && toCase(rows[0]);
}

export async function listRuns(db: Db, agentId: string, limit: number): Promise<EvalRun[]> {
  const { rows } = await db.query<RunRow>('SELECT * FROM eval_runs WHERE agent_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2', [
    agentId,
    limit,
  ]);
  return rows.map(toRun);
}

export interface RunSummary {
  cases: number;
  passed: number;
  failed: number;
  errors: number;
  cancelled: number;
  pending: number;
  costUsd: number;
}

export async function runSummaries(db: Db, runIds: string[]): Promise<Map<string, RunSummary>> {
  const { rows } = await db.query<{
    run_id: string;
    cases: number;
    passed: number;
    failed: number;
    errors: number;
    cancelled: number;
    cost: number;
  }>(
    `SELECT run_id, count(*)::int AS cases, count(*) FILTER (WHERE status = 'passed')::int AS passed,
            count(*) FILTER (WHERE status = 'failed')::int AS failed, count(*) FILTER (WHERE status = 'error')::int AS errors,
            count(*) FILTER (WHERE status = 'cancelled')::int AS cancelled,
            coalesce(sum(cost_usd), 0)::float8 AS cost
       FROM eval_cases WHERE run_id = ANY($1) GROUP BY run_id`,
    [runIds],
  );
  return new Map(
    rows.map((row) => [
      row.run_id,
      {
        cases: row.cases,
        passed: row.passed,
        failed: row.failed,
        errors: row.errors,
        cancelled: row.cancelled,
        pending: row.cases - row.passed - row.failed - row.errors - row.cancelled,
        costUsd: row.cost,
      },
    ]),
  );
}

/** The case's session and message ids: `fresh` ones the first time, the same ones on every later attempt. */
export async function claimCaseIds(
  db: Db,
  runId: string,
  position: number,
  fresh: { sessionId: string; messageId: string },
): Promise<{ sessionId: string; messageId: string }> {
  const { rows } = await db.query<{ session_id: string; message_id: string }>(
    `UPDATE eval_cases SET session_id = coalesce(session_id, $3), message_id = coalesce(message_id, $4),
            status = CASE WHEN status = 'pending' THEN 'running' ELSE status END
      WHERE run_id = $1 AND position = $2 RETURNING session_id, message_id`,
    [runId, position, fresh.sessionId, fresh.messageId],
  );
  return { sessionId: rows[0]!.session_id, messageId: rows[0]!.message_id };
}

/** Marks the case's session as an eval's: its tool calls are answered from `replayOf` when given. */
export async function markEvalSession(
  db: Db,
  input: { sessionId: string; runId: string; replayOf: string | null; unmatched: 'error' | 'live' },
): Promise<void> {
  await db.query(
    `INSERT INTO eval_sessions (session_id, run_id, replay_of, unmatched) VALUES ($1, $2, $3, $4) ON CONFLICT (session_id) DO NOTHING`,
    [input.sessionId, input.runId, input.replayOf, input.unmatched],
  );
}

/** The first result written stands; false when the case had ended already. */
export async function endCase(
  db: Db,
  runId: string,
  position: number,
  result: {
    status: CaseStatus;
    verdicts: Verdict[];
    transcript: Transcript | null;
    costUsd: number | null;
    latencyMs: number | null;
    error: string | null;
  },
): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE eval_cases SET status = $3, verdicts = $4, transcript = $5, cost_usd = $6, latency_ms = $7, error = $8, ended_at = now()
      WHERE run_id = $1 AND position = $2 AND status IN ('pending', 'running')`,
    [
      runId,
      position,
      result.status,
      JSON.stringify(result.verdicts),
      result.transcript && JSON.stringify(result.transcript),
      result.costUsd,
      result.latencyMs,
      result.error,
    ],
  );
  return (rowCount ?? 0) > 0;
}

/** Ends the run (and, when cancelled, its cases not ended); the first end stands. */
export async function endRun(db: Db, runId: string, status: Exclude<RunStatus, 'running'>): Promise<void> {
  await inTransaction(db, async (client) => {
    const { rowCount } = await client.query(`UPDATE eval_runs SET status = $2, ended_at = now() WHERE id = $1 AND status = 'running'`, [
      runId,
      status,
    ]);
    if (rowCount && status === 'cancelled')
      await client.query(
        `UPDATE eval_cases SET status = 'cancelled', ended_at = now() WHERE run_id = $1 AND status IN ('pending', 'running')`,
        [runId],
      );
  });
}

/**
 * The best completed run of this revision against the stored set's latest version: its pass rate, or
 * undefined when there is none. What a promote's `requireEval` reads: cases added to the set since an
 * earlier run passed must pass too.
 */
export async function bestSetScore(
  db: Db,
  input: { agentId: string; revision: number; setName: string },
): Promise<{ runId: string; score: number; version: number } | undefined> {
  const { rows } = await db.query<{ id: string; set_version: number; score: number }>(
    `SELECT r.id, r.set_version, (count(*) FILTER (WHERE c.status = 'passed'))::float8 / count(*) AS score
       FROM eval_runs r JOIN eval_cases c ON c.run_id = r.id
      WHERE r.agent_id = $1 AND r.revision = $2 AND r.set_name = $3 AND r.status = 'completed'
        AND r.set_version = (SELECT max(version) FROM eval_sets s WHERE s.user_id = r.user_id AND s.name = $3)
      GROUP BY r.id, r.set_version ORDER BY score DESC, r.set_version DESC LIMIT 1`,
    [input.agentId, input.revision, input.setName],
  );
  const row = rows[0];
  return row && { runId: row.id, score: row.score, version: row.set_version };
}

/** Its workflow runs (started now, or found started): the housekeeping pass leaves it alone. */
export async function markRunStarted(db: Db, runId: string): Promise<void> {
  await db.query('UPDATE eval_runs SET started_at = now() WHERE id = $1 AND started_at IS NULL', [runId]);
}

/**
 * Runs recorded more than `olderThanMs` ago whose workflow is not known to run (the API that recorded
 * them could not start it, or died first), with what starting them takes. A day old at most.
 */
export async function unstartedRuns(
  db: Db,
  olderThanMs: number,
  limit: number,
): Promise<Array<{ runId: string; userId: string; agentId: string; cases: number; concurrency: number }>> {
  const { rows } = await db.query<{ id: string; user_id: string; agent_id: string; cases: number; concurrency: number }>(
    `SELECT r.id, r.user_id, r.agent_id, r.concurrency, (SELECT count(*)::int FROM eval_cases c WHERE c.run_id = r.id) AS cases
       FROM eval_runs r
      WHERE r.status = 'running' AND r.started_at IS NULL
        AND r.created_at < now() - make_interval(secs => $1::double precision / 1000) AND r.created_at > now() - interval '1 day'
      ORDER BY r.created_at LIMIT $2`,
    [olderThanMs, limit],
  );
  return rows.map((row) => ({ runId: row.id, userId: row.user_id, agentId: row.agent_id, cases: row.cases, concurrency: row.concurrency }));
}

/** Sessions an estimate of a turn's cost reads: the agent's most recent ones. */
const ESTIMATE_SESSIONS = 50;

/**
 * What a turn of this agent cost on average, from its most recent sessions that had one (their total
 * cost over their user messages; eval cases' sessions left out); null when it has none to go by. An
 * estimate of an eval's cost.
 */
export async function averageTurnCost(db: Db, agentId: string): Promise<{ costUsd: number; turns: number } | null> {
  const { rows } = await db.query<{ cost: string | null; turns: string }>(
    `SELECT sum(s.cost_usd)::text AS cost, coalesce(sum(t.turns), 0)::text AS turns
       FROM (SELECT id, cost_usd FROM sessions s0
              WHERE agent_id = $1 AND NOT EXISTS (SELECT 1 FROM eval_sessions e WHERE e.session_id = s0.id)
              ORDER BY created_at DESC LIMIT $2) s
       CROSS JOIN LATERAL (SELECT count(*) AS turns FROM messages m WHERE m.session_id = s.id AND m.role = 'user') t
      WHERE t.turns > 0`,
    [agentId, ESTIMATE_SESSIONS],
  );
  const turns = Number(rows[0]?.turns ?? 0);
  return turns > 0 ? { costUsd: Number(rows[0]!.cost) / turns, turns } : null;
}
