// A long session for the replay benchmarks, seeded the cheapest honest way: rows appended through
// the store's own appendEvents (the next seq of the session in each transaction, as a worker writes
// them), in batches, with no model, workflow or NOTIFY listener in the loop. The events are what
// dominates a long session: short deltas of one streamed assistant message.
import type { NewEvent } from '../contract/events.ts';
import { inTransaction, type Db } from '../store/db.ts';
import { appendEvents } from '../store/events.ts';

/** Appended per transaction. */
const SEED_BATCH = 2_000;

/** Brings a new session (createSession wrote its seq 1) to exactly `total` events. */
export async function seedDeltaEvents(db: Db, sessionId: string, total: number): Promise<void> {
  for (let written = 1; written < total;) {
    const count = Math.min(SEED_BATCH, total - written);
    const events: NewEvent[] = Array.from({ length: count }, (_, i) => ({
      type: 'message.part.delta',
      data: { messageId: 'msg_bench', delta: ` token${written + i}` },
    }));
    await inTransaction(db, (client) => appendEvents(client, sessionId, events));
    written += count;
  }
}
