// Reverting: a message and everything after it in conversation order leave the conversation. The
// rows stay (marked `reverted`, never shown to the model or listed again) and `messages.reverted`
// tells readers of the log which messages to take away.
import type { Db, DbClient } from './db.ts';
import { inTransaction } from './db.ts';
import { appendEvents, lockedSessionHasEvent } from './events.ts';
import { TERMINAL_TURN_EVENTS, type MessageRole, type MessageStatus } from '../contract/events.ts';

export class MessageNotFoundError extends Error {
  override name = 'MessageNotFound';
}

export class NotAnAssistantMessageError extends Error {
  override name = 'NotAnAssistantMessage';
}

/** A turn is running (or waiting): the conversation cannot be changed under it. */
export class SessionBusyError extends Error {
  override name = 'SessionBusy';
}

export interface SessionMessage {
  id: string;
  role: MessageRole;
  status: MessageStatus;
  reverted: boolean;
  /** The user message of its turn. */
  turnId: string;
  model: { providerId: string; modelId: string } | null;
}

interface TargetRow {
  id: string;
  role: MessageRole;
  status: MessageStatus;
  reverted: boolean;
  turn_id: string;
  model: SessionMessage['model'];
  position: number;
  turn_position: number;
}

async function findTarget(db: Db | DbClient, sessionId: string, messageId: string): Promise<TargetRow | undefined> {
  const { rows } = await db.query<TargetRow>(
    `SELECT m.id, m.role, m.status, m.reverted, m.turn_id, m.model, m.position, t.position AS turn_position
       FROM messages m JOIN messages t ON t.id = m.turn_id AND t.session_id = m.session_id
      WHERE m.session_id = $1 AND m.id = $2`,
    [sessionId, messageId],
  );
  return rows[0];
}

/** A message of this session (reverted or not), or undefined. */
export async function findSessionMessage(db: Db | DbClient, sessionId: string, messageId: string): Promise<SessionMessage | undefined> {
  const row = await findTarget(db, sessionId, messageId);
  return row && { id: row.id, role: row.role, status: row.status, reverted: row.reverted, turnId: row.turn_id, model: row.model };
}

export interface RevertOutcome {
  /** In conversation order, the named message first. */
  reverted: string[];
  /** seq of the `messages.reverted` event. */
  seq: number;
  /** The user message of the named message's turn. */
  userMessageId: string;
}

/**
 * Reverts `messageId` and every message after it, once: run again for a message it already
 * reverted (a retried activity), it answers what it did the first time.
 */
export async function revertFrom(
  db: Db,
  input: {
    sessionId: string;
    messageId: string;
    requireAssistant?: boolean;
    /** A turn the caller saw running: refused unless its terminal event is written. */
    runningTurnId?: string;
    /** A message reverted already is not in the conversation (MessageNotFoundError), rather than answered as reverted then. */
    refuseReverted?: boolean;
  },
): Promise<RevertOutcome> {
  return inTransaction(db, (client) => revertFromIn(client, input));
}

/** The same, in the caller's transaction (a regeneration takes its turn with it: store/session-inbox.ts). */
export async function revertFromIn(client: DbClient, input: Parameters<typeof revertFrom>[1]): Promise<RevertOutcome> {
  // Appends lock the session row too: nothing is added to the conversation while this runs.
  const { rows: sessions } = await client.query<{ status: string }>('SELECT status FROM sessions WHERE id = $1 FOR UPDATE', [
    input.sessionId,
  ]);
  if (
    sessions[0]?.status !== 'idle' ||
    (input.runningTurnId && !(await lockedSessionHasEvent(client, input.sessionId, TERMINAL_TURN_EVENTS, { turnId: input.runningTurnId })))
  ) {
    throw new SessionBusyError('A turn is running in this session');
  }
  const target = await findTarget(client, input.sessionId, input.messageId);
  if (!target) throw new MessageNotFoundError(`There is no message "${input.messageId}" in this session`);
  if (input.requireAssistant && target.role !== 'assistant') {
    throw new NotAnAssistantMessageError(`Message "${input.messageId}" is a ${target.role} message, not an assistant reply`);
  }
  // A subtask's reply is a turn of its own with no user message: there is no turn to run again.
  if (input.requireAssistant && target.turn_id === target.id) {
    throw new NotAnAssistantMessageError(`Message "${input.messageId}" is a subtask's reply, which no turn of this session wrote`);
  }
  if (target.reverted && input.refuseReverted)
    throw new MessageNotFoundError(`Message "${input.messageId}" is no longer in the conversation`);
  if (target.reverted) {
    const { rows } = await client.query<{ seq: number; data: { messageIds: string[] } }>(
      `SELECT seq, data FROM events WHERE session_id = $1 AND type = 'messages.reverted' AND data->'messageIds'->>0 = $2`,
      [input.sessionId, input.messageId],
    );
    if (!rows[0]) throw new MessageNotFoundError(`Message "${input.messageId}" is no longer in the conversation`);
    return { reverted: rows[0].data.messageIds, seq: rows[0].seq, userMessageId: target.turn_id };
  }
  const { rows } = await client.query<{ id: string; turn_position: number; position: number }>(
    `UPDATE messages m SET reverted = true
       FROM messages t
      WHERE t.id = m.turn_id AND t.session_id = m.session_id AND m.session_id = $1 AND NOT m.reverted
        AND (t.position, m.position) >= ($2::bigint, $3::bigint)
     RETURNING m.id, t.position AS turn_position, m.position`,
    [input.sessionId, target.turn_position, target.position],
  );
  rows.sort((a, b) => a.turn_position - b.turn_position || a.position - b.position);
  const messageIds = rows.map((row) => row.id);
  const [event] = await appendEvents(client, input.sessionId, [{ type: 'messages.reverted', data: { messageIds } }]);
  return { reverted: messageIds, seq: event!.seq, userMessageId: target.turn_id };
}
