// Batches streamed text into `message.part.delta` events: one event per flush window instead of
// one per token, written in order, each write heartbeating the activity (which is also how a
// cancellation reaches a streaming step quickly).
import type { Db } from '../../store/db.ts';
import { appendDelta } from '../../store/messages.ts';

export class DeltaWriter {
  private buffer = '';
  private timer: NodeJS.Timeout | undefined;
  private chain: Promise<void> = Promise.resolve();
  private failure: unknown;

  constructor(
    private readonly db: Db,
    private readonly target: { sessionId: string; messageId: string; attempt: number },
    private readonly flushMs: number,
    private readonly onFlush: () => void,
  ) {}

  push(text: string): void {
    if (this.failure) throw this.failure;
    this.buffer += text;
    // A failed timed write is kept in `failure` and raised by the next push() or flush(); it must not
    // become an unhandled rejection, which would take the whole worker down.
    this.timer ??= setTimeout(() => this.flush().catch(() => undefined), this.flushMs);
  }

  /** Writes what is buffered; resolves when every earlier write has committed. */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const delta = this.buffer;
    this.buffer = '';
    if (delta) {
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
