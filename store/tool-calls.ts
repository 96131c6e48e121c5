// Calls of custom tools, as the session's events record them: a `tool.call` with `executor: 'client'`
// is awaited from the client until a `tool.result` with its id follows (an answer, or the timeout's
// error). Model-made call ids may repeat across turns, so the latest call of an id is the one meant.
import { toolCallIdempotencyKey } from '../lib/tool-call-keys.ts';
import type { Db } from './db.ts';

export interface ClientToolCall {
  sessionId: string;
  messageId: string;
  toolCallId: string;
  toolName: string;
  input: unknown;
  executor: 'client' | 'service';
  seq: number;
  /** A tool.result for it has been written. */
  answered: boolean;
}

interface CallRow {
  session_id: string;
  seq: string | number;
  data: { messageId: string; toolCallId: string; toolName: string; input: unknown; executor?: 'client' | 'service' };
  answered: boolean;
}

const CALLS = `
  SELECT c.session_id, c.seq, c.data,
         EXISTS (SELECT 1 FROM events r
                  WHERE r.session_id = c.session_id AND r.type = 'tool.result' AND r.seq > c.seq
                    AND r.data->>'toolCallId' = c.data->>'toolCallId') AS answered
    FROM events c
   WHERE c.session_id = $1 AND c.type = 'tool.call'`;

const toCall = (row: CallRow): ClientToolCall => ({
  sessionId: row.session_id,
  messageId: row.data.messageId,
  toolCallId: row.data.toolCallId,
  toolName: row.data.toolName,
  input: row.data.input,
  executor: row.data.executor ?? 'service',
  seq: Number(row.seq),
  answered: row.answered,
});

/** The latest call with this id in the session, if any. */
export async function findToolCall(db: Db, sessionId: string, toolCallId: string): Promise<ClientToolCall | undefined> {
  const { rows } = await db.query<CallRow>(`${CALLS} AND c.data->>'toolCallId' = $2 ORDER BY c.seq DESC LIMIT 1`, [sessionId, toolCallId]);
  return rows[0] && toCall(rows[0]);
}

/**
 * Client calls of the session's latest turn still without a result, oldest first: what a waiting
 * session waits for (calls of an aborted turn never get one, and are not awaited). A call whose answer
 * PostgreSQL has taken (store/client-tool-answers.ts) is not awaited, though its tool.result is still to come.
 */
export async function awaitedClientToolCalls(db: Db, sessionId: string): Promise<ClientToolCall[]> {
  const { rows } = await db.query<CallRow>(
    `${CALLS} AND c.data->>'executor' = 'client'
       AND c.seq > (SELECT coalesce(max(seq), 0) FROM events WHERE session_id = $1 AND type = 'turn.started')
       AND NOT EXISTS (SELECT 1 FROM client_tool_answers a
                        WHERE a.session_id = $1 AND a.message_id = c.data->>'messageId' AND a.tool_call_id = c.data->>'toolCallId')
     ORDER BY c.seq`,
    [sessionId],
  );
  return rows.map(toCall).filter((call) => !call.answered);
}

/**
 * A call as clients see what a session waits for. The key is derived again rather than read from the
 * event, so calls recorded before events carried it have one too, and it is the same.
 */
export function awaitedView(call: ClientToolCall): {
  messageId: string;
  toolCallId: string;
  toolName: string;
  input: unknown;
  idempotencyKey: string;
} {
  return {
    messageId: call.messageId,
    toolCallId: call.toolCallId,
    toolName: call.toolName,
    input: call.input,
    idempotencyKey: toolCallIdempotencyKey(call.sessionId, call.messageId, call.toolCallId),
  };
}
