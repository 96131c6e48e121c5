// Session tails of one API process read PostgreSQL together: the reads asked for in the same moment
// go in one query (store/tail-reads.ts), the mirror of the worker's group commit
// (activities/turn/delta-commits.ts). One worker transaction NOTIFYs every session whose deltas it
// wrote, so fifty streams woken by it cost one query here instead of fifty. A read goes at the next
// macrotask, so a lone wake waits for nothing; a few queries may run at once (a slow one does not hold
// back the wakes after it), and when that many run, what is asked meanwhile goes together in the next.
import { isDatabaseUnavailable, type Db } from '../../store/db.ts';
import { readTails, type TailRead } from '../../store/tail-reads.ts';
import type { SessionEvent } from '../../contract/events.ts';

interface Pending {
  read: TailRead;
  resolve: (events: SessionEvent[]) => void;
  reject: (error: unknown) => void;
}

export interface TailReadLimits {
  /** Most sessions per query; the rest go in another one at once. */
  maxReads: number;
  /** Most queries running at once, a few of the API pool's connections. */
  maxQueries: number;
}

const DEFAULT_LIMITS: TailReadLimits = { maxReads: 100, maxQueries: 3 };

export type GroupedTailReader = (sessionId: string, afterSeq: number, limit: number) => Promise<SessionEvent[]>;

export function groupedTailReads(db: Db, limits: TailReadLimits = DEFAULT_LIMITS): GroupedTailReader {
  let queue: Pending[] = [];
  let running = 0;
  let scheduled = false;

  async function readBatch(batch: Pending[]): Promise<void> {
    try {
      const pages = await readTails(
        db,
        batch.map((pending) => pending.read),
      );
      batch.forEach((pending, index) => pending.resolve(pages[index]!));
    } catch (error) {
      // A failed read makes its tail forget its position, and every reader of that session then reads
      // for itself: one bad read (a big page past a statement timeout, say) must not do that to every
      // tail it shared a query with, so the reads are tried again one by one. A database that is down
      // fails them all at once, as it would fail the single reads.
      if (batch.length > 1 && !isDatabaseUnavailable(error)) {
        await Promise.all(batch.map((pending) => readBatch([pending])));
        return;
      }
      for (const pending of batch) pending.reject(error);
    }
  }

  function launch(): void {
    while (queue.length > 0 && running < limits.maxQueries) {
      const batch = queue.slice(0, limits.maxReads);
      queue = queue.slice(batch.length);
      running++;
      void readBatch(batch).finally(() => {
        running--;
        schedule();
      });
    }
  }

  function schedule(): void {
    if (scheduled || queue.length === 0 || running >= limits.maxQueries) return;
    scheduled = true;
    setImmediate(() => {
      scheduled = false;
      launch();
    });
  }

  return (sessionId, afterSeq, limit) =>
    new Promise((resolve, reject) => {
      queue.push({ read: { sessionId, afterSeq, limit }, resolve, reject });
      schedule();
    });
}
