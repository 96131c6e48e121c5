// The newest events of one session, shared by every reader of it in this API process: on each wake
// it reads PostgreSQL once, after the highest seq it has, and keeps a bounded buffer of what it read
// for the readers that are caught up. A reader behind the buffer (a replay, or a slow client whose
// position the buffer has moved past) is told so and pages from PostgreSQL itself; the buffer never
// waits for anyone, so a slow reader costs queries, never this process's memory.
import type { SessionEvent } from '../../contract/events.ts';
import { sseFrame } from './sse-frame.ts';

export interface TailLimits {
  /** Rows per read. */
  pageSize: number;
  /** The buffer keeps at most this many events... */
  maxEvents: number;
  /** ...and at most this many characters (about bytes) of their SSE frames. */
  maxBytes: number;
}

export const DEFAULT_TAIL_LIMITS: TailLimits = { pageSize: 1_000, maxEvents: 1_000, maxBytes: 1024 * 1024 };

/** Reads the events with a seq above `afterSeq`, in order, at most `limit`. */
export type ReadAfter = (afterSeq: number, limit: number) => Promise<SessionEvent[]>;

export class SessionTail {
  /** The buffered events, from `entries[head]` on; compacted now and then rather than shifted each time. */
  private entries: SessionEvent[] = [];
  private head = 0;
  private bytes = 0;
  /** The highest seq read; undefined until a reader tells where the log ended (see `caughtUp`). */
  private position: number | undefined;
  private woken = false;
  private changeCount = 0;
  private reading = false;
  private closed = false;
  private waiters = new Set<() => void>();

  constructor(
    private readonly read: ReadAfter,
    private readonly limits: TailLimits = DEFAULT_TAIL_LIMITS,
    private readonly onError: (error: unknown) => void = () => undefined,
  ) {}

  /**
   * The buffered events after `seq`, possibly none yet; or undefined when the buffer does not reach
   * back to `seq`, and the caller must read PostgreSQL itself.
   */
  after(seq: number): SessionEvent[] | undefined {
    if (this.position === undefined) return undefined;
    const first = this.entries[this.head];
    // With an empty buffer everything up to `position` has been read and nothing is kept.
    const floor = first ? first.seq - 1 : this.position;
    if (seq < floor) return undefined;
    if (seq >= this.position) return [];
    // Buffered seqs are consecutive, so the first event after `seq` is at a known index.
    return this.entries.slice(this.head + (seq - floor));
  }

  /** Whether the tail has read up to `seq`, which is then a position in the log. */
  reached(seq: number): boolean {
    return this.position !== undefined && seq <= this.position;
  }

  /**
   * A reader read PostgreSQL to its end at `seq`: a tail without a position starts there. `seq` must be
   * a seq of the log (one the reader read, or the session's last_seq), never a position a client
   * named: a position past the end would leave every reader of the session behind the tail for good.
   */
  caughtUp(seq: number): void {
    if (this.position !== undefined || this.closed) return;
    this.reset(seq);
    // A change like any other: a reader whose own read ended empty while this reader saw further waits
    // for the tail only if nothing changed during its read, so it must learn of this and read again.
    this.notify();
    // A wake that came before the position was known is read for now.
    if (this.woken) void this.run();
  }

  /**
   * The hub's wake: new events may have been committed. `pushed`, the appended events when the notice
   * carried them, are taken as they are when they continue what the tail holds and no read is under way
   * or owed; otherwise the tail reads PostgreSQL, as for any wake.
   */
  wake(pushed?: readonly SessionEvent[]): void {
    if (pushed && this.position !== undefined && !this.reading && !this.woken && !this.closed) {
      const position = this.position;
      const fresh = pushed.filter((event) => event.seq > position);
      if (fresh.length === 0) return;
      if (fresh.every((event, index) => event.seq === position + 1 + index)) {
        this.append(fresh);
        return;
      }
    }
    this.woken = true;
    if (this.position !== undefined) void this.run();
  }

  /** Counts the tail's changes: a reader notes it before a read, to learn whether the tail moved during it. */
  get changes(): number {
    return this.changeCount;
  }

  /**
   * Resolves at the next change of the tail, or when `signal` aborts; at once if the tail changed since
   * `since` (a value of `changes`), so a change during the caller's own read is not waited for in vain.
   */
  changed(signal: AbortSignal, since?: number): Promise<void> {
    if (signal.aborted || this.closed || (since !== undefined && since !== this.changeCount)) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const done = () => {
        signal.removeEventListener('abort', done);
        this.waiters.delete(done);
        resolve();
      };
      this.waiters.add(done);
      signal.addEventListener('abort', done, { once: true });
    });
  }

  /** Drops the buffer and releases every waiter: the last reader has gone. */
  close(): void {
    this.closed = true;
    this.reset(undefined);
    this.notify();
  }

  /** For tests and metrics. */
  get buffered(): { events: number; bytes: number } {
    return { events: this.entries.length - this.head, bytes: this.bytes };
  }

  /** One read at a time; a wake during a read makes another read after it, so none is lost. */
  private async run(): Promise<void> {
    if (this.reading) return;
    this.reading = true;
    try {
      while (this.woken && !this.closed) {
        this.woken = false;
        let page: SessionEvent[];
        do {
          page = await this.read(this.position!, this.limits.pageSize);
          if (this.closed) return;
          if (page.length > 0) this.append(page);
        } while (page.length === this.limits.pageSize);
      }
    } catch (error) {
      // What this read would have brought must not wait for the next wake: the tail forgets its
      // position, so every reader reads PostgreSQL itself once and the next caught-up one re-positions it.
      // That reader's own read may have begun before the events this read was woken for were committed,
      // and their wake is spent: the tail reads again as soon as it is positioned.
      this.onError(error);
      this.reset(undefined);
      this.woken = true;
      this.notify();
    } finally {
      this.reading = false;
    }
  }

  private append(page: readonly SessionEvent[]): void {
    for (const event of page) {
      // A page comes from `position` on, so it continues the buffer with no gap.
      this.entries.push(event);
      this.bytes += sseFrame(event).length;
    }
    this.position = page[page.length - 1]!.seq;
    while (
      this.head < this.entries.length &&
      (this.entries.length - this.head > this.limits.maxEvents || this.bytes > this.limits.maxBytes)
    ) {
      this.bytes -= sseFrame(this.entries[this.head]!).length;
      this.entries[this.head++] = undefined as unknown as SessionEvent;
    }
    if (this.head > 0 && this.head >= this.entries.length / 2) {
      this.entries = this.entries.slice(this.head);
      this.head = 0;
    }
    this.notify();
  }

  private notify(): void {
    this.changeCount++;
    for (const waiter of [...this.waiters]) waiter();
  }

  private reset(position: number | undefined): void {
    this.position = position;
    this.entries = [];
    this.head = 0;
    this.bytes = 0;
  }
}
