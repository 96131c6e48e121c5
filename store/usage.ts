// Usage sums for GET /usage, done by PostgreSQL: per agent from the sessions' running totals, per
// agent and UTC day from the replies (assistant messages) and compaction summaries completed in the window.
import type { Db } from './db.ts';

export interface AgentTotals {
  agentId: string;
  name: string;
  sessions: number;
  inputTokens: number;
  outputTokens: number;
  /** Of the input, read from and written to the providers' prompt caches. */
  cacheReadTokens: number;
  cacheWriteTokens: number;
  costUsd: number;
}

export interface DayTotals {
  day: string;
  agentId: string;
  replies: number;
  inputTokens: number;
  outputTokens: number;
  /** Of the input, read from and written to the providers' prompt caches. */
  cacheReadTokens: number;
  cacheWriteTokens: number;
  costUsd: number;
}

export async function agentTotals(db: Db, userId: string): Promise<AgentTotals[]> {
  const { rows } = await db.query<CountedRow & { agent_id: string; name: string; sessions: number }>(
    `SELECT a.id AS agent_id, a.name, count(s.id)::int AS sessions,
            coalesce(sum(s.input_tokens), 0) AS input, coalesce(sum(s.output_tokens), 0) AS output, coalesce(sum(s.cost_usd), 0) AS cost,
            coalesce(sum(s.cache_read_tokens), 0) AS cache_read, coalesce(sum(s.cache_write_tokens), 0) AS cache_write
       FROM agents a LEFT JOIN sessions s ON s.agent_id = a.id
      WHERE a.user_id = $1 AND a.deleted_at IS NULL
      GROUP BY a.id, a.name ORDER BY a.name`,
    [userId],
  );
  return rows.map((row) => ({ agentId: row.agent_id, name: row.name, sessions: row.sessions, ...counted(row) }));
}

/** Replies completed from `since` on, by agent and UTC day. */
export async function dailyTotals(db: Db, userId: string, since: Date): Promise<DayTotals[]> {
  const { rows } = await db.query<CountedRow & { day: string; agent_id: string; replies: number }>(
    `SELECT to_char(m.completed_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, s.agent_id, (count(*) FILTER (WHERE m.role = 'assistant'))::int AS replies,
            coalesce(sum((m.usage->>'inputTokens')::bigint), 0) AS input,
            coalesce(sum((m.usage->>'outputTokens')::bigint), 0) AS output,
            coalesce(sum((m.usage->>'cacheReadTokens')::bigint), 0) AS cache_read,
            coalesce(sum((m.usage->>'cacheWriteTokens')::bigint), 0) AS cache_write,
            coalesce(sum(m.cost_usd), 0) AS cost
       FROM sessions s JOIN messages m ON m.session_id = s.id
      WHERE s.user_id = $1 AND m.role IN ('assistant', 'summary') AND m.completed_at >= $2
      GROUP BY 1, 2 ORDER BY 1, 2`,
    [userId, since],
  );
  return rows.map((row) => ({ day: row.day, agentId: row.agent_id, replies: row.replies, ...counted(row) }));
}

/** The sums both reads select (bigint and numeric come back as strings). */
interface CountedRow {
  input: string;
  output: string;
  cache_read: string;
  cache_write: string;
  cost: string;
}

function counted(row: CountedRow) {
  return {
    inputTokens: Number(row.input),
    outputTokens: Number(row.output),
    cacheReadTokens: Number(row.cache_read),
    cacheWriteTokens: Number(row.cache_write),
    costUsd: Number(row.cost),
  };
}
