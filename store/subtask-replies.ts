// A subtask's reply going back into the session its command was called from: one complete assistant
// message there, with a `subtask` part naming the child session and its reply, beside the reply's
// text (and json). The message is a turn of its own in the parent's conversation (no model runs for
// it): the parent's next turn reads it; a turn running there meanwhile does not.
import type { MessagePart } from '../contract/events.ts';
import { inTransaction, type Db } from './db.ts';
import { insertMessage } from './messages.ts';
import { readTurnReply } from './agent-calls.ts';

export interface SubtaskReply {
  /** The parent session and the id its reply message takes (chosen when the command was sent). */
  parentSessionId: string;
  messageId: string;
  childSessionId: string;
  /** The subtask's turn in the child session. */
  turnId: string;
  status: 'completed' | 'failed' | 'aborted';
  command?: string;
}

/** Records the reply once (a retried call finds it); nothing when the parent session is gone. */
export async function recordSubtaskReply(db: Db, reply: SubtaskReply): Promise<{ recorded: boolean }> {
  return inTransaction(db, async (client) => {
    const parent = await client.query('SELECT 1 FROM sessions WHERE id = $1 FOR UPDATE', [reply.parentSessionId]);
    if (parent.rowCount === 0) return { recorded: false };
    const existing = await client.query('SELECT 1 FROM messages WHERE id = $1', [reply.messageId]);
    if ((existing.rowCount ?? 0) > 0) return { recorded: true };

    const { messageId, text, json, error } = await readTurnReply(client, reply.childSessionId, reply.turnId, reply.status === 'failed');
    const parts: MessagePart[] = [
      {
        type: 'subtask',
        sessionId: reply.childSessionId,
        messageId,
        status: reply.status,
        ...(reply.command ? { command: reply.command } : {}),
        ...(error ? { error } : {}),
      },
      ...(text ? [{ type: 'text' as const, text }] : []),
      ...(json !== undefined ? [{ type: 'json' as const, json }] : []),
    ];
    await insertMessage(client, {
      id: reply.messageId,
      sessionId: reply.parentSessionId,
      turnId: reply.messageId,
      role: 'assistant',
      parts,
      status: 'complete',
    });
    return { recorded: true };
  });
}
