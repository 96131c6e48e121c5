// Turns a step's streamed text into `message.part.delta` events, written in order. (The step
// heartbeats on a timer of its own: a heartbeat per write cost the worker more than the write.)
//
// How often a stream writes is a token bucket: one write per DELTA_FLUSH_MS on average, with a burst
// of BURST_WRITES. Text arriving while the stream has credit is written at once (the next macrotask,
// so text arriving together goes in one event); without credit it waits for the next one and goes
// with whatever arrived meanwhile. A model writing a token every 50 ms therefore has each token
// written as it comes, even when a busy event loop hands them over unevenly, while a fast model
// costs no more than one event per window. The writes go through the worker's DeltaCommits, which
// puts every stream's writes of the moment in one transaction; a stream has at most one write there
// at a time, so its events keep their order and nothing it writes after a failed write is stored.
import { performance } from 'node:perf_hooks';
import type { DeltaCommits } from './delta-commits.ts';

/** Writes a stream may make back to back before the window spaces them. */
export const BURST_WRITES = 4;

export class DeltaWriter {
  private buffer = '';
  private pending: { cancel(): void } | undefined;
  private chain: Promise<void> = Promise.resolve();
  private failure: unknown;
  /** Writes the stream may make now, and when that was counted (performance.now()). */
  private credit = BURST_WRITES;
  private creditAt = performance.now();

  constructor(
    private readonly commits: DeltaCommits,
    private readonly target: { sessionId: string; messageId: string; attempt: number },
    private readonly flushMs: number,
  ) {}

  push(text: string): void {
    if (this.failure) throw this.failure;
    this.buffer += text;
    if (this.pending) return;
    // A failed timed write is kept in `failure` and raised by the next push() or flush(); it must not
    // become an unhandled rejection, which would take the whole worker down.
    const write = () => void this.flush().catch(() => undefined);
    const wait = (1 - this.refill()) * this.flushMs;
    if (wait <= 0) {
      const immediate = setImmediate(write);
      this.pending = { cancel: () => clearImmediate(immediate) };
    } else {
      const timer = setTimeout(write, wait);
      this.pending = { cancel: () => clearTimeout(timer) };
    }
  }

  /** Writes what is buffered; resolves when every earlier write has committed. */
  flush(): Promise<void> {
    this.pending?.cancel();
    this.pending = undefined;
    const delta = this.buffer;
    this.buffer = '';
    if (delta) {
      // A final flush may write without credit: the bucket only spaces a stream's writes.
      this.credit = Math.max(0, this.refill() - 1);
      this.chain = this.chain.then(async () => {
        if (this.failure) return;
        try {
          await this.commits.commit({ ...this.target, delta });
        } catch (error) {
          this.failure = error;
        }
      });
    }
    return this.chain.then(() => {
      if (this.failure) throw this.failure;
    });
  }

  close(): void {
    this.pending?.cancel();
    this.pending = undefined;
  }

  /** Adds the credit earned since it was last counted; answers the credit now. */
  private refill(): number {
    const now = performance.now();
    this.credit = Math.min(BURST_WRITES, this.credit + (now - this.creditAt) / this.flushMs);
    this.creditAt = now;
    return this.credit;
  }
}
