// A child session of an agent call that starts waiting on someone (an approval, a client's tool
// results) holds every turn up its chain of calls. Each caller up the chain learns it with a
// `subagent.waiting` event on its step, in the transaction that makes the child wait, so a waiting
// send to the first caller answers `waiting` and the callers' streams show who holds them
// (docs/tools.md, "Calling other agents").
import type { DbClient } from './db.ts';
import { appendEvents } from './events.ts';

/** Links walked at most: a chain is AGENT_CALL_DEPTH_LIMIT deep; this only guards against a cycle in bad data. */
const MAX_CHAIN = 32;

interface Link {
  parentSessionId: string;
  /** The call as its caller's `subagent.started` names it. */
  messageId: string;
  toolCallId: string;
  agent: string;
  /** The caller's turn that made the call (the user message it answers): its own caller's call names it. */
  callerTurn: string | null;
}

/**
 * The call of `sessionId`'s caller that holds it: the one whose message started the turn `turn` (the
 * user message it answers), or the latest call of that child when none did (a turn not known, or
 * regenerated under an id of its own). Undefined for a session no agent called.
 */
async function callerLink(client: DbClient, sessionId: string, turn: string | null): Promise<Link | undefined> {
  const { rows } = await client.query<{
    parent_session_id: string;
    message_id: string;
    tool_call_id: string;
    agent: string;
    caller_turn: string | null;
  }>(
    `SELECT s.parent_session_id, e.data->>'messageId' AS message_id, e.data->>'toolCallId' AS tool_call_id, e.data->>'agent' AS agent,
            (SELECT turn_id FROM messages WHERE id = e.data->>'messageId' AND session_id = s.parent_session_id) AS caller_turn
       FROM sessions s
       JOIN LATERAL (
         SELECT data FROM events
          WHERE session_id = s.parent_session_id AND type = 'subagent.started' AND data->>'childSessionId' = s.id
          ORDER BY (data->>'childMessageId' = $2) DESC NULLS LAST, seq DESC LIMIT 1
       ) e ON true
      WHERE s.id = $1 AND s.parent_tool_call_id IS NOT NULL`,
    [sessionId, turn],
  );
  const row = rows[0];
  return row
    ? {
        parentSessionId: row.parent_session_id,
        messageId: row.message_id,
        toolCallId: row.tool_call_id,
        agent: row.agent,
        callerTurn: row.caller_turn,
      }
    : undefined;
}

/**
 * `sessionId`'s turn `turn` (the user message it answers) now waits on someone (`on`): each caller up
 * its chain gets `subagent.waiting`, on the step that made the call, naming its own child on the way
 * (`childSessionId`) and the session that waits (`waitingSessionId`). Nothing for a session no agent
 * called: one indexed read.
 */
export async function announceWaitToCallers(
  client: DbClient,
  sessionId: string,
  turn: string | null,
  on: 'approval' | 'tool',
): Promise<void> {
  let child = sessionId;
  let childTurn = turn;
  for (let hops = 0; hops < MAX_CHAIN; hops++) {
    const link = await callerLink(client, child, childTurn);
    if (!link) return;
    await appendEvents(client, link.parentSessionId, [
      {
        type: 'subagent.waiting',
        data: {
          messageId: link.messageId,
          toolCallId: link.toolCallId,
          agent: link.agent,
          childSessionId: child,
          waitingSessionId: sessionId,
          on,
        },
      },
    ]);
    child = link.parentSessionId;
    childTurn = link.callerTurn;
  }
}
