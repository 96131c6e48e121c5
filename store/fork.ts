// A fork: a new session of the same user, agent and revision, holding a copy of its origin's
// conversation so far. Its log is `session.created {forkedFrom}` followed by one `message.created`
// per copy, so a reader draws the fork from its own events alone.
import type { Db } from './db.ts';
import { inSnapshotTransaction } from './db.ts';
import { appendEvents } from './events.ts';
import { copyMedia } from './media.ts';
import { toMessageView, type MessageRow } from './messages.ts';
import { insertSession, type Session } from './sessions.ts';
import { newId } from '../lib/ids.ts';

/**
 * Copies the finished (complete or aborted), not reverted messages in conversation order, with new
 * ids and turn ids mapped onto the copies; a turn still running contributes only what it finished.
 * A compaction's summary is copied with the rest, naming the copy of the message it summarises through.
 * The fork also gets the origin's media rows, so file parts keep working (the bytes are shared).
 */
export async function forkSession(db: Db, origin: Session): Promise<Session> {
  // One snapshot for the messages and the media they name.
  return inSnapshotTransaction(db, async (client) => {
    const { rows: sources } = await client.query<{ id: string; turn_id: string }>(
      `SELECT m.id, m.turn_id FROM messages m JOIN messages t ON t.id = m.turn_id AND t.session_id = m.session_id
        WHERE m.session_id = $1 AND NOT m.reverted AND m.status IN ('complete', 'aborted')
        ORDER BY t.position, m.position`,
      [origin.id],
    );
    const session = await insertSession(client, {
      userId: origin.userId,
      agentId: origin.agentId,
      revision: origin.revision,
      forkedFrom: origin.id,
    });

    const newIds = new Map(sources.map((source) => [source.id, newId('msg')]));
    // A message whose turn's user message is not copied would not be in the fork's conversation.
    const copies = sources.filter((source) => newIds.has(source.turn_id));
    if (copies.length > 0) {
      // Positions continue after session.created (seq 1): each is the seq of the copy's message.created.
      const { rows } = await client.query<MessageRow>(
        `INSERT INTO messages (id, session_id, position, turn_id, role, parts, status, attempt, model, usage, cost_usd,
                               created_at, completed_at, copied_from)
         SELECT x.new_id, $1, x.position, x.new_turn_id, m.role, m.parts, m.status, 1, m.model, m.usage, m.cost_usd,
                m.created_at, m.completed_at, m.id
           FROM unnest($2::text[], $3::text[], $4::bigint[], $5::text[]) AS x(old_id, new_id, position, new_turn_id)
           JOIN messages m ON m.id = x.old_id
         RETURNING *`,
        [
          session.id,
          copies.map((copy) => copy.id),
          copies.map((copy) => newIds.get(copy.id)!),
          copies.map((_, index) => session.lastSeq + 1 + index),
          copies.map((copy) => newIds.get(copy.turn_id)!),
        ],
      );
      rows.sort((a, b) => a.position - b.position);
      // A compaction's summary names the last message it stands for: in the fork, that message's copy.
      for (const row of rows) {
        if (row.role !== 'summary') continue;
        row.parts = row.parts.map((part) =>
          part.type === 'compaction' ? { ...part, throughMessageId: newIds.get(part.throughMessageId) ?? part.throughMessageId } : part,
        );
        await client.query('UPDATE messages SET parts = $2 WHERE id = $1', [row.id, JSON.stringify(row.parts)]);
      }
      await appendEvents(
        client,
        session.id,
        rows.map((row) => ({ type: 'message.created' as const, data: { message: toMessageView(row) } })),
      );
    }
    await copyMedia(client, origin.id, session.id);
    return { ...session, lastSeq: session.lastSeq + copies.length };
  });
}
