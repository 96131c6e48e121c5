// A compaction, stored: its summary as a message of the conversation (role `summary`, with the
// compaction's data as a part) and the `session.compacted` event, in one transaction with what it
// cost added to the session's totals. Nothing else of the conversation is touched.
import type { Db } from './db.ts';
import { releaseBudgetHolds } from './budgets.ts';
import { inTransaction } from './db.ts';
import { appendEvents } from './events.ts';
import { addToSessionTotals, insertMessage, toMessageView, type MessageRow } from './messages.ts';
import type { EventData, MessageView, TokenUsage } from '../contract/events.ts';

export interface NewCompaction {
  sessionId: string;
  /** The turn the summary belongs to (a user message's id): where it sits in conversation order. */
  messagesTurnId: string;
  summaryMessageId: string;
  text: string;
  throughMessageId: string;
  tokensBefore: number;
  tokensAfter: number;
  reason: EventData['session.compacted']['reason'];
  /** The turn whose step needed it, named by the event (absent for one asked for through the API). */
  turnId?: string;
  model: { providerId: string; modelId: string };
  usage: TokenUsage;
  costUsd: number | null;
  /** Budget holds of the summarising calls, whose cost the summary now carries (store/budgets.ts). */
  releasesHolds?: readonly string[];
}

/**
 * A revert (taken in PostgreSQL, with no word to the session's workflow) took the summarised messages out
 * of the conversation while the summary was being written: storing it would bring their content back.
 */
export class ConversationRevertedError extends Error {
  override name = 'ConversationRevertedError';
}

/**
 * Stores it once: recorded again (a retried activity), it answers the summary stored the first time.
 * Refused (ConversationRevertedError, nothing stored) when the last message it summarises was reverted
 * meanwhile; the summarising calls then stay charged, their cost on no message, as an attempt's whose
 * summary another stored.
 */
export async function recordCompaction(db: Db, input: NewCompaction): Promise<MessageView> {
  return inTransaction(db, async (client) => {
    // The session's lock first, which a revert holds while it marks messages: this comes before it or after
    // it. The reads below are statements of their own, so that one waiting for the lock reads what the revert
    // committed (a statement sees the data as of its own start, even when it then waits for a lock).
    await client.query('SELECT 1 FROM sessions WHERE id = $1 FOR UPDATE', [input.sessionId]);
    const existing = await client.query<MessageRow>('SELECT * FROM messages WHERE id = $1', [input.summaryMessageId]);
    // Stored by another attempt: this one's calls stay charged (their holds), their cost being on no message.
    if (existing.rows[0]) return toMessageView(existing.rows[0]);
    // The last message summarised and the turn the summary joins must both still be in the conversation.
    const { rowCount } = await client.query('SELECT 1 FROM messages WHERE session_id = $1 AND id IN ($2, $3) AND reverted', [
      input.sessionId,
      input.throughMessageId,
      input.messagesTurnId,
    ]);
    if (rowCount) {
      throw new ConversationRevertedError(
        'The conversation was reverted while it was being compacted, and the summary would bring back what was reverted; nothing was stored. Compact it again',
      );
    }
    if (input.releasesHolds) await releaseBudgetHolds(client, input.releasesHolds);
    const { throughMessageId, tokensBefore, tokensAfter, reason } = input;
    const { message } = await insertMessage(client, {
      id: input.summaryMessageId,
      sessionId: input.sessionId,
      turnId: input.messagesTurnId,
      role: 'summary',
      parts: [
        { type: 'compaction', throughMessageId, tokensBefore, tokensAfter },
        { type: 'text', text: input.text },
      ],
      status: 'complete',
      model: input.model,
      usage: input.usage,
      costUsd: input.costUsd,
    });
    await addToSessionTotals(client, input.sessionId, input.usage, input.costUsd);
    await appendEvents(client, input.sessionId, [
      {
        type: 'session.compacted',
        data: {
          throughMessageId,
          summaryMessageId: message.id,
          tokensBefore,
          tokensAfter,
          reason,
          ...(input.turnId ? { turnId: input.turnId } : {}),
        },
      },
    ]);
    return message;
  });
}
