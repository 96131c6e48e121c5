// Session tails of one API process read PostgreSQL together: the reads asked for in the same moment
// go in one query (store/tail-reads.ts), the mirror of the worker's group commit
// (activities/turn/delta-commits.ts). One worker transaction NOTIFYs every session whose deltas it
// wrote, so fifty streams woken by it cost one query here instead of fifty. While no read is in
// flight the next one goes at the next macrotask, so a lone wake waits for nothing; what is asked for
// while one is in flight goes together in the next.
import type { Db } from '../../store/db.ts';
import { readTails, type TailRead } from '../../store/tail-reads.ts';
import type { SessionEvent } from '../../contract/events.ts';

interface Pending {
  read: TailRead;
  resolve: (events: SessionEvent[]) => void;
  reject: (error: unknown) => void;
}

/** Most sessions per query; the rest go in the next one at once. */
const MAX_READS_PER_QUERY = 100;

export type GroupedTailReader = (sessionId: string, afterSeq: number, limit: number) => Promise<SessionEvent[]>;

export function groupedTailReads(db: Db, maxReads = MAX_READS_PER_QUERY): GroupedTailReader {
  let queue: Pending[] = [];
  let running = false;
  let scheduled = false;

  async function drain(): Promise<void> {
    running = true;
    try {
      while (queue.length > 0) {
        const batch = queue.slice(0, maxReads);
        queue = queue.slice(batch.length);
        try {
          const pages = await readTails(
            db,
            batch.map((pending) => pending.read),
          );
          batch.forEach((pending, index) => pending.resolve(pages[index]!));
        } catch (error) {
          // Each tail handles a failed read itself (it forgets its position and its readers re-read).
          for (const pending of batch) pending.reject(error);
        }
      }
    } finally {
      running = false;
    }
  }

  function schedule(): void {
    if (running || scheduled) return;
    scheduled = true;
    setImmediate(() => {
      scheduled = false;
      void drain();
    });
  }

  return (sessionId, afterSeq, limit) =>
    new Promise((resolve, reject) => {
      queue.push({ read: { sessionId, afterSeq, limit }, resolve, reject });
      schedule();
    });
}
