// Handing workflows what PostgreSQL already holds: a session's wake-up for the sends the API took, an
// approval's answer. Each is a signal the engine takes with no worker running. The request that stored
// the thing does not wait for it: under load the engine took 100-200 ms per signal, which was most of
// a send's answer time (bench/overload.bench.ts). The signals go out from here instead, in the order
// they were asked for, at most HAND_OFF_CONCURRENCY at once per API process; a session's wake-up asked
// for while another waits to go out rides on that one (the workflow reads the whole inbox). A hand-off
// that fails, or is lost with its process, is made again by the sweeps (api/housekeeping.ts): within
// seconds once the storing connection has closed, else after 30 s.
import { AsyncResource } from 'node:async_hooks';
import { callTemporal, type TemporalCallDeps } from './temporal-call.ts';

/** Signals in flight at once from one API process: enough for hundreds a second at the engine's 100-200 ms under load. */
const HAND_OFF_CONCURRENCY = 32;

interface Waiting {
  /** The call under its deadline (api/temporal-call.ts), bound to its asker's async context. */
  run: () => Promise<void>;
  /** Named in the log when the hand-off fails. */
  log: Record<string, unknown>;
  sweep: string;
}

export class HandOffs {
  /** Not yet sent, by key, in the order first asked for (a Map keeps a key's place when its value is replaced). */
  private readonly waiting = new Map<string, Waiting>();
  private running = 0;
  private drained: Array<() => void> = [];
  private closed = false;

  constructor(
    private readonly deps: TemporalCallDeps,
    private readonly concurrency = HAND_OFF_CONCURRENCY,
  ) {}

  /**
   * Sends `call` soon, never rejecting. `key` names its workflow: a hand-off still waiting under the same key
   * is replaced by this one, which goes out after this one's data was stored. One already in flight is not:
   * the workflow may have read before this data was stored.
   */
  submit(key: string, call: () => Promise<void>, what: { log: Record<string, unknown>; sweep: string }): void {
    // After close (a request that outlived the stop): left to the sweeps, as a hand-off lost with its process is.
    if (this.closed) return;
    // Run in the asker's async context, its trace (the request's span) with it. The deadline is set inside
    // that context: bound inside it, the call would no longer see the deadline callTemporal sets.
    const run = AsyncResource.bind(() => callTemporal(this.deps, call));
    this.waiting.set(key, { run, log: what.log, sweep: what.sweep });
    this.pump();
  }

  /** Hand-offs not yet made: waiting and in flight. */
  get pending(): number {
    return this.waiting.size + this.running;
  }

  /** Resolves once every hand-off asked for has been made (or has failed), or after `timeoutMs`; answers how many were left. */
  async drain(timeoutMs: number): Promise<number> {
    if (this.pending === 0) return 0;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      new Promise<void>((resolve) => this.drained.push(resolve)),
      new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs))),
    ]);
    clearTimeout(timer);
    return this.pending;
  }

  /**
   * Sends nothing more (at stop, before the Temporal connection closes): what still waits is left to the
   * sweeps of the API processes that outlive this one, as a hand-off lost with its process is.
   */
  close(): void {
    this.closed = true;
    const left = this.waiting.size;
    this.waiting.clear();
    if (left > 0) this.deps.logger.warn({ left }, 'hand-offs not made before the stop; the sweeps make them');
    if (this.running === 0) for (const resolve of this.drained.splice(0)) resolve();
  }

  private pump(): void {
    while (!this.closed && this.running < this.concurrency && this.waiting.size > 0) {
      const [key, next] = this.waiting.entries().next().value as [string, Waiting];
      this.waiting.delete(key);
      this.running++;
      void next
        .run()
        .catch((error: unknown) => {
          this.deps.logger.warn({ err: error, ...next.log }, `could not hand the workflow what is stored; ${next.sweep} tries again`);
        })
        .finally(() => {
          this.running--;
          this.pump();
          if (this.pending === 0) for (const resolve of this.drained.splice(0)) resolve();
        });
    }
  }
}
