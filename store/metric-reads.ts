// What the metrics read from PostgreSQL: gauges counted at scrape time (turns in flight, approvals
// waiting) and a turn's age. The counts look only at busy sessions and unanswered approvals, which
// partial indexes hold (migration 0017), so a scrape stays cheap however many sessions there are.
import type { Db, DbClient } from './db.ts';

export interface TurnCounts {
  /** Sessions whose turn runs. */
  running: number;
  /** Sessions whose turn waits for a person or a client's tool result. */
  waiting: number;
  /** Sent messages whose turn has not started yet (behind a busy session's running turn). */
  queued: number;
}

/**
 * Turns run one at a time per session, in the order they were sent: the queued ones are the turn-owning
 * user messages after the message whose turn started last (read newest first, so each busy session
 * costs an index range, not a scan of its history).
 */
export async function countTurns(db: Db): Promise<TurnCounts> {
  const { rows } = await db.query<TurnCounts>(
    `SELECT count(*) FILTER (WHERE s.status = 'running')::int AS running,
            count(*) FILTER (WHERE s.status = 'waiting')::int AS waiting,
            coalesce(sum((
              SELECT count(*) FROM messages m
               WHERE m.session_id = s.id AND m.role = 'user' AND m.turn_id = m.id AND NOT m.reverted
                 AND m.position > (
                   SELECT started.position FROM messages started
                    WHERE started.id = (
                      SELECT coalesce(e.data->>'userMessageId', e.data->>'turnId') FROM events e
                       WHERE e.session_id = s.id AND e.type = 'turn.started'
                       ORDER BY e.seq DESC LIMIT 1))
            )), 0)::int AS queued
       FROM sessions s
      WHERE s.status <> 'idle'`,
  );
  return rows[0]!;
}

export async function countWaitingApprovals(db: Db): Promise<number> {
  const { rows } = await db.query<{ waiting: number }>(`SELECT count(*)::int AS waiting FROM approvals WHERE status = 'unanswered'`);
  return rows[0]!.waiting;
}

/**
 * Seconds since the turn started (its turn.started event), by the database's clock; undefined if it has
 * not. Read newest first: the scan of the session's events stops at the turn's start, however long the
 * session before it.
 */
export async function turnAgeSeconds(db: Db | DbClient, sessionId: string, turnId: string): Promise<number | undefined> {
  const { rows } = await db.query<{ age: number | null }>(`SELECT (${turnAgeSql('$1', '$2')}) AS age`, [sessionId, turnId]);
  return rows[0]?.age ?? undefined;
}

/** The scalar subquery of turnAgeSeconds, for a statement that reads it with more (`session`, `turn`: its parameters). */
export function turnAgeSql(session: string, turn: string): string {
  return `SELECT extract(epoch FROM clock_timestamp() - at)::float8
       FROM events WHERE session_id = ${session} AND type = 'turn.started' AND data->>'turnId' = ${turn}
      ORDER BY seq DESC LIMIT 1`;
}

/**
 * The fraction of PostgreSQL's NOTIFY queue in use (0 to 1). Every notice stays queued until every
 * listening connection has read it, so one listener that stops reading (a frozen process whose
 * connection stays open) makes it grow; full, every transaction that announces events fails.
 */
export async function notificationQueueUsage(db: Db): Promise<number> {
  const { rows } = await db.query<{ usage: number }>('SELECT pg_notification_queue_usage()::float8 AS usage');
  return rows[0]!.usage;
}
