// MCP tool calls whose turns run (schema/migrations/0039_mcp_tool_calls.sql): what a client's
// cancellation, which names only its request, aborts. Keyed by the user, the key that called and the
// client's Mcp-Session-Id, so two clients of one user with the same request ids never cancel each other's.
import type { Db } from './db.ts';

export interface McpCallRef {
  userId: string;
  keyId: string;
  clientSession: string;
  /** The JSON-RPC request id, as text (a number and a string with the same digits are one id here). */
  requestId: string;
}

export interface McpCallTurn {
  sessionId: string;
  /** The turn the call's message runs in (its own, or the one it joined as steering). */
  turnId: string;
}

/** Records the turn a call started; a repeated request id (a client that reuses ids) takes the newer turn. */
export async function recordMcpToolCall(db: Db, call: McpCallRef & McpCallTurn): Promise<void> {
  await db.query(
    `INSERT INTO mcp_tool_calls (user_id, key_id, client_session, request_id, session_id, turn_id) VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (user_id, key_id, client_session, request_id)
     DO UPDATE SET session_id = excluded.session_id, turn_id = excluded.turn_id, created_at = now()`,
    [call.userId, call.keyId, call.clientSession, call.requestId, call.sessionId, call.turnId],
  );
}

/** The turn of a call still running (its process forgets it once the call answers). */
export async function findMcpToolCall(db: Db, call: McpCallRef): Promise<McpCallTurn | undefined> {
  const { rows } = await db.query<{ session_id: string; turn_id: string }>(
    `SELECT session_id, turn_id FROM mcp_tool_calls WHERE user_id = $1 AND key_id = $2 AND client_session = $3 AND request_id = $4`,
    [call.userId, call.keyId, call.clientSession, call.requestId],
  );
  const row = rows[0];
  return row ? { sessionId: row.session_id, turnId: row.turn_id } : undefined;
}

/** The call answered: its turn is no longer the client's to cancel this way. */
export async function forgetMcpToolCall(db: Db, call: McpCallRef & { turnId: string }): Promise<void> {
  await db.query(
    `DELETE FROM mcp_tool_calls WHERE user_id = $1 AND key_id = $2 AND client_session = $3 AND request_id = $4 AND turn_id = $5`,
    [call.userId, call.keyId, call.clientSession, call.requestId, call.turnId],
  );
}

/** Rows of calls whose process died before they answered. */
export async function deleteStaleMcpToolCalls(db: Db, olderThanMs: number): Promise<number> {
  const { rowCount } = await db.query(`DELETE FROM mcp_tool_calls WHERE created_at <= now() - $1::float8 * interval '1 millisecond'`, [
    olderThanMs,
  ]);
  return rowCount ?? 0;
}
