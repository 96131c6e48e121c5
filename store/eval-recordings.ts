// What an eval reads of sessions: a recorded session's first turn as a case (its input, and its reply and
// tool calls as the baseline), a case's own turn as its transcript, and the recorded results that answer
// a replaying case's tool calls. A recorded call answers at most one call of a case's session, and a call
// keeps the answer it got first (a retried tool activity asks again with the same tool call id).
import type { Db, DbClient } from './db.ts';
import { inTransaction } from './db.ts';
import { turnMessages } from './messages.ts';
import { readTurnReply } from './agent-calls.ts';
import type { Transcript } from './evals.ts';

/** A recorded session's first user message and its turn, or undefined when it has none. */
export async function recordedCase(db: Db, sessionId: string): Promise<{ input: string; baseline: Transcript } | undefined> {
  const { rows } = await db.query<{ turn_id: string; parts: Array<{ type: string; text?: string }> }>(
    `SELECT turn_id, parts FROM messages WHERE session_id = $1 AND role = 'user' AND NOT reverted ORDER BY position LIMIT 1`,
    [sessionId],
  );
  const first = rows[0];
  const input = first?.parts.flatMap((part) => (part.type === 'text' && part.text ? [part.text] : [])).join('\n');
  if (!first || !input) return undefined;
  return { input, baseline: await turnTranscript(db, sessionId, first.turn_id) };
}

/** The reply and tool calls of one turn, each call flagged when an eval's replay answered it or found no recording. */
export async function turnTranscript(db: Db, sessionId: string, turnId: string): Promise<Transcript> {
  const [messages, reply, replayed] = await Promise.all([
    turnMessages(db, sessionId, turnId),
    readTurnReply(db, sessionId, turnId, false),
    db.query<{ tool_call_id: string; recorded_seq: string | null }>(
      'SELECT tool_call_id, recorded_seq FROM eval_replayed_calls WHERE session_id = $1',
      [sessionId],
    ),
  ]);
  const answered = new Map(replayed.rows.map((row) => [row.tool_call_id, row.recorded_seq !== null]));
  const toolCalls = messages.flatMap((message) =>
    message.parts.flatMap((part) => {
      if (part.type !== 'tool-call') return [];
      const found = answered.get(part.toolCallId);
      return [
        { name: part.toolName, input: part.input, ...(found === true ? { replayed: true } : found === false ? { unmatched: true } : {}) },
      ];
    }),
  );
  return { reply: reply.text, ...(reply.json !== undefined ? { json: reply.json } : {}), toolCalls };
}

export interface EvalSession {
  runId: string;
  replayOf: string | null;
  unmatched: 'error' | 'live';
}

export async function evalSessionOf(db: Db, sessionId: string): Promise<EvalSession | null> {
  const { rows } = await db.query<{ run_id: string; replay_of: string | null; unmatched: 'error' | 'live' }>(
    'SELECT run_id, replay_of, unmatched FROM eval_sessions WHERE session_id = $1',
    [sessionId],
  );
  const row = rows[0];
  return row ? { runId: row.run_id, replayOf: row.replay_of, unmatched: row.unmatched } : null;
}

export type RecordedAnswer = { matched: true; output: unknown; isError: boolean } | { matched: false };

/**
 * The recorded result for a call of a replaying session: the first recorded call (in the recording's
 * order) of that tool with an equal input (as JSON values: key order aside) that no other call of the
 * session took. Read from the run's copy of the recording's calls (store/evals.ts, createRun).
 */
export async function recordedAnswer(
  db: Db,
  call: { sessionId: string; runId: string; replayOf: string; toolCallId: string; toolName: string; input: unknown },
): Promise<RecordedAnswer> {
  return inTransaction(db, async (client) => {
    // One match at a time per session: two calls with the same input take two recorded calls.
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`eval-replay:${call.sessionId}`]);
    const taken = await client.query<{ recorded_seq: string | null }>(
      'SELECT recorded_seq FROM eval_replayed_calls WHERE session_id = $1 AND tool_call_id = $2',
      [call.sessionId, call.toolCallId],
    );
    if (taken.rows[0]) return answerAt(client, call, taken.rows[0].recorded_seq);
    const { rows } = await client.query<{ seq: string }>(
      `SELECT c.seq FROM eval_recorded_calls c
        WHERE c.run_id = $1 AND c.session_id = $2 AND c.tool_name = $3 AND c.input IS NOT DISTINCT FROM $4::jsonb
          AND NOT EXISTS (SELECT 1 FROM eval_replayed_calls t WHERE t.session_id = $5 AND t.recorded_seq = c.seq)
        ORDER BY c.seq LIMIT 1`,
      [call.runId, call.replayOf, call.toolName, JSON.stringify(call.input ?? null), call.sessionId],
    );
    const seq = rows[0]?.seq ?? null;
    await client.query('INSERT INTO eval_replayed_calls (session_id, tool_call_id, recorded_seq, tool_name) VALUES ($1, $2, $3, $4)', [
      call.sessionId,
      call.toolCallId,
      seq,
      call.toolName,
    ]);
    return answerAt(client, call, seq);
  });
}

async function answerAt(client: DbClient, call: { runId: string; replayOf: string }, seq: string | null): Promise<RecordedAnswer> {
  if (seq === null) return { matched: false };
  const { rows } = await client.query<{ output: unknown; is_error: boolean }>(
    'SELECT output, is_error FROM eval_recorded_calls WHERE run_id = $1 AND session_id = $2 AND seq = $3',
    [call.runId, call.replayOf, seq],
  );
  const row = rows[0];
  return row ? { matched: true, output: row.output, isError: row.is_error } : { matched: false };
}

/** A call of a replaying session, as its `tool.call` event has it (the tool's name and input). */
export async function sessionToolCall(
  db: Db,
  sessionId: string,
  toolCallId: string,
): Promise<{ toolName: string; input: unknown } | undefined> {
  const { rows } = await db.query<{ tool_name: string; input: unknown }>(
    `SELECT data->>'toolName' AS tool_name, data->'input' AS input FROM events
      WHERE session_id = $1 AND type = 'tool.call' AND data->>'toolCallId' = $2 LIMIT 1`,
    [sessionId, toolCallId],
  );
  return rows[0] && { toolName: rows[0].tool_name, input: rows[0].input };
}

/**
 * What the recorded session's approval of the recorded call this session's call was matched with
 * (recordedAnswer) came to: its answer, `expired`, or `none` when the recorded call was not asked
 * about (or the recording is gone).
 */
export async function recordedApprovalOf(
  db: Db,
  call: { sessionId: string; toolCallId: string; replayOf: string },
): Promise<{ status: 'answered'; choice: string; note: string | null } | { status: 'expired' | 'none' }> {
  const { rows } = await db.query<{ status: string; choice: string | null; note: string | null }>(
    `SELECT a.status, a.choice, a.note
       FROM eval_replayed_calls t
       JOIN events e ON e.session_id = $3 AND e.seq = t.recorded_seq
       JOIN approvals a ON a.session_id = $3 AND a.tool_call_id = e.data->>'toolCallId' AND a.connect_server IS NULL
      WHERE t.session_id = $1 AND t.tool_call_id = $2
      ORDER BY a.created_at LIMIT 1`,
    [call.sessionId, call.toolCallId, call.replayOf],
  );
  const row = rows[0];
  if (row?.status === 'answered' && row.choice !== null) return { status: 'answered', choice: row.choice, note: row.note };
  return { status: row?.status === 'expired' ? 'expired' : 'none' };
}
