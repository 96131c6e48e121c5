// Group commit of streamed text for a whole worker process. Every streaming step hands its delta
// writes here; while no write is in flight the next one goes at once (the next macrotask, so
// writes queued together share it), and what arrives while one is in flight goes together in the
// next transaction. Fifty streams then cost a few commits per batching window instead of fifty,
// and an idle worker adds one round trip to a token, not a window.
//
// A failed transaction fails only the writes it held. When it failed for something other than the
// database being unavailable (a row it could not store, say) it is retried one stream at a time, so
// that one bad stream does not fail the steps it happened to share a transaction with.
import type { Db } from '../../store/db.ts';
import { isDatabaseUnavailable } from '../../store/db.ts';
import { appendDeltaBatch, type DeltaEntry } from '../../store/delta-batch.ts';
import { StaleAttemptError } from '../../store/messages.ts';

interface Pending {
  entry: DeltaEntry;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/** One message attempt's writes in a batch, merged into one event. */
interface Group {
  entry: DeltaEntry;
  waiters: Pending[];
}

export interface DeltaCommitLimits {
  /** Most delta events per transaction; the rest go in the next one at once. */
  maxEvents: number;
  /** Most characters of text per transaction. */
  maxChars: number;
}

const DEFAULT_LIMITS: DeltaCommitLimits = { maxEvents: 500, maxChars: 1_000_000 };

export class DeltaCommits {
  private queue: Pending[] = [];
  private running = false;
  private scheduled = false;

  constructor(
    private readonly db: Db,
    private readonly limits: DeltaCommitLimits = DEFAULT_LIMITS,
  ) {}

  /**
   * Queues text for a message attempt. Resolves once it is committed (and announced); rejects with
   * StaleAttemptError when the attempt no longer writes that message, or with the database's error.
   * A caller keeps its own writes in order by waiting for one before queuing the next.
   */
  commit(entry: DeltaEntry): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push({ entry, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.running || this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      void this.drain();
    });
  }

  private async drain(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      while (this.queue.length > 0) await this.write(this.nextBatch());
    } finally {
      this.running = false;
    }
  }

  /** Takes queued writes up to the limits, merging each message attempt's into one event. */
  private nextBatch(): Group[] {
    const groups = new Map<string, Group>();
    let chars = 0;
    let taken = 0;
    for (const pending of this.queue) {
      const key = `${pending.entry.messageId}:${pending.entry.attempt}`;
      const group = groups.get(key);
      const full = chars + pending.entry.delta.length > this.limits.maxChars || (!group && groups.size >= this.limits.maxEvents);
      if (full && taken > 0) break;
      chars += pending.entry.delta.length;
      taken++;
      if (group) {
        group.entry = { ...group.entry, delta: group.entry.delta + pending.entry.delta };
        group.waiters.push(pending);
      } else {
        groups.set(key, { entry: pending.entry, waiters: [pending] });
      }
    }
    this.queue = this.queue.slice(taken);
    return [...groups.values()];
  }

  private async write(groups: Group[]): Promise<void> {
    let written: Set<string>;
    try {
      written = await appendDeltaBatch(
        this.db,
        groups.map((group) => group.entry),
      );
    } catch (error) {
      if (groups.length > 1 && !isDatabaseUnavailable(error)) {
        for (const group of groups) await this.write([group]);
        return;
      }
      for (const group of groups) for (const waiter of group.waiters) waiter.reject(error);
      return;
    }
    for (const { entry, waiters } of groups) {
      const error = written.has(`${entry.messageId}:${entry.attempt}`)
        ? undefined
        : new StaleAttemptError(`message ${entry.messageId} is no longer written by attempt ${entry.attempt}`);
      for (const waiter of waiters) {
        if (error) waiter.reject(error);
        else waiter.resolve();
      }
    }
  }
}
