// A client's results for the custom tools it runs, decided by PostgreSQL (schema/migrations/0032): the
// API stores the first answer for a call whether or not a worker runs, the waiting turn stores "no
// answer" when its timeout comes first, and whichever row is written first stands. The session's
// workflow reads the answers of turns not ended (store/session-inbox.ts, takeInbox, with its sends) and its turn
// writes each as a tool.result (activities/turn/bookkeeping.ts, announceToolResult).
import type { Db } from './db.ts';
import { inTransaction } from './db.ts';
import { TERMINAL_TURN_EVENTS } from '../contract/events.ts';
import type { ToolResultInput } from '../core/client-tool-calls.ts';

/** What a client answered: a result (any JSON) or an error the model reads as the tool's failure. */
export type ClientToolAnswer = ({ output: unknown } | { error: string }) & {
  /** Another agent's reply (store/agent-calls.ts): what the child's turn spent. A client's answer has none. */
  spent?: StoredToolAnswer['spent'];
};

/** An answer as the session workflow takes it: what the client posted. */
export type StoredToolAnswer = ToolResultInput;

export type StoreAnswerOutcome =
  /** This answer is the call's. */
  | { status: 'stored' }
  /** A row was there first: the client's (this one again, or another), or the turn's timeout (`answer` undefined). */
  | { status: 'decided'; answer?: ClientToolAnswer }
  /** The call's turn has ended (completed, failed or aborted): nothing awaits it. */
  | { status: 'ended' };

/**
 * Stores a client's answer to call `toolCallId` of message `messageId` (the call recorded at `callSeq`)
 * unless the call has one, or its turn has ended. Under the session's lock, so a turn's end and an
 * answer are ordered: an answer is either stored before the end or refused after it.
 */
export async function storeClientToolAnswer(
  db: Db,
  input: { sessionId: string; userId: string; messageId: string; toolCallId: string; callSeq: number; answer: ClientToolAnswer },
): Promise<StoreAnswerOutcome> {
  return inTransaction(db, async (client) => {
    await client.query('SELECT 1 FROM sessions WHERE id = $1 FOR UPDATE', [input.sessionId]);
    const { rows } = await client.query<{ ended: boolean; answered: boolean; existing: ClientToolAnswer | null; decided: boolean }>(
      `SELECT EXISTS (SELECT 1 FROM events WHERE session_id = $1 AND seq > $2 AND type = ANY($3)) AS ended,
              EXISTS (SELECT 1 FROM events WHERE session_id = $1 AND seq > $2 AND type = 'tool.result'
                         AND data->>'toolCallId' = $5) AS answered,
              a.answer AS existing, a.session_id IS NOT NULL AS decided
         FROM (SELECT 1) one
         LEFT JOIN client_tool_answers a ON a.session_id = $1 AND a.message_id = $4 AND a.tool_call_id = $5`,
      [input.sessionId, input.callSeq, TERMINAL_TURN_EVENTS, input.messageId, input.toolCallId],
    );
    const found = rows[0]!;
    if (found.decided) return { status: 'decided', ...(found.existing ? { answer: found.existing } : {}) };
    // Answered through the workflow itself (an API of an earlier release, or the turn's timeout before this table).
    if (found.answered) return { status: 'decided' };
    if (found.ended) return { status: 'ended' };
    await client.query(
      `INSERT INTO client_tool_answers (session_id, message_id, tool_call_id, user_id, answer) VALUES ($1, $2, $3, $4, $5)`,
      [input.sessionId, input.messageId, input.toolCallId, input.userId, JSON.stringify(input.answer)],
    );
    return { status: 'stored' };
  });
}

interface AnswerRow {
  message_id: string;
  tool_call_id: string;
  answer: ClientToolAnswer;
}

/** A stored row as the session workflow takes it: what the client posted. */
export function storedToolAnswer(row: AnswerRow): StoredToolAnswer {
  return {
    messageId: row.message_id,
    toolCallId: row.tool_call_id,
    ...('error' in row.answer ? { error: row.answer.error } : { output: row.answer.output }),
    ...(row.answer.spent ? { spent: row.answer.spent } : {}),
  };
}

/**
 * The turn stops waiting for these calls (its timeout): a call with no answer gets the row that says so,
 * and no answer is taken for it after; the answers stored before (their signal may not have come yet)
 * are returned, for the turn to take.
 */
export async function closeClientToolCalls(
  db: Db,
  input: { sessionId: string; userId: string; messageId: string; toolCallIds: readonly string[] },
): Promise<StoredToolAnswer[]> {
  return inTransaction(db, async (client) => {
    // Under the session's lock, as the API stores an answer: one of the two goes first, whole. The read
    // is a statement of its own, so it sees an answer committed while this waited for the lock.
    await client.query('SELECT 1 FROM sessions WHERE id = $1 FOR UPDATE', [input.sessionId]);
    await client.query(
      `INSERT INTO client_tool_answers (session_id, message_id, tool_call_id, user_id, answer, woken)
       SELECT $1, $2, id, $4, NULL, true FROM unnest($3::text[]) AS id
       ON CONFLICT DO NOTHING`,
      [input.sessionId, input.messageId, input.toolCallIds, input.userId],
    );
    const { rows } = await client.query<AnswerRow>(
      `SELECT message_id, tool_call_id, answer FROM client_tool_answers
        WHERE session_id = $1 AND message_id = $2 AND tool_call_id = ANY($3) AND answer IS NOT NULL`,
      [input.sessionId, input.messageId, input.toolCallIds],
    );
    return rows.map(storedToolAnswer);
  });
}

/** A session's stored answers whose workflow has not been handed them yet (`woken` false). */
export async function unwokenAnswers(db: Db, sessionId: string): Promise<StoredToolAnswer[]> {
  const { rows } = await db.query<AnswerRow>(
    `SELECT message_id, tool_call_id, answer FROM client_tool_answers WHERE session_id = $1 AND NOT woken AND answer IS NOT NULL`,
    [sessionId],
  );
  return rows.map(storedToolAnswer);
}
