// Batches streamed text into `message.part.delta` events: at most one event per flush window instead
// of one per token, written in order, each write heartbeating the activity (which is also how a
// cancellation reaches a streaming step quickly). A stream that has not written for a whole window
// writes at once (its first token does not wait for the window); while it streams it writes at most
// once per window, so under load a stream costs no more writes than a fixed window would.
import { performance } from 'node:perf_hooks';
import type { Db } from '../../store/db.ts';
import { appendDelta } from '../../store/messages.ts';

export class DeltaWriter {
  private buffer = '';
  private timer: NodeJS.Timeout | undefined;
  private chain: Promise<void> = Promise.resolve();
  private failure: unknown;
  /** When the last write was issued (performance.now()); none yet: the first push writes at once. */
  private lastWriteAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly db: Db,
    private readonly target: { sessionId: string; messageId: string; attempt: number },
    private readonly flushMs: number,
    private readonly onFlush: () => void,
  ) {}

  push(text: string): void {
    if (this.failure) throw this.failure;
    this.buffer += text;
    if (this.timer) return;
    // Zero when idle: the next macrotask, so tokens that arrive together still go in one event.
    // A failed timed write is kept in `failure` and raised by the next push() or flush(); it must not
    // become an unhandled rejection, which would take the whole worker down.
    const wait = Math.max(0, this.lastWriteAt + this.flushMs - performance.now());
    this.timer = setTimeout(() => this.flush().catch(() => undefined), wait);
  }

  /** Writes what is buffered; resolves when every earlier write has committed. */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const delta = this.buffer;
    this.buffer = '';
    if (delta) {
      this.lastWriteAt = performance.now();
      this.chain = this.chain.then(async () => {
        if (this.failure) return;
        try {
          await appendDelta(this.db, { ...this.target, delta });
          this.onFlush();
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
    clearTimeout(this.timer);
  }
}
