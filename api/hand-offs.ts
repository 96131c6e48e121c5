// Handing workflows what PostgreSQL already holds: a session's wake-up for the sends the API took, an
// approval's answer. Each is a signal the engine takes with no worker running. The request that stored
// the thing does not wait for it: under load the engine took 100-200 ms per signal, which was most of
// a send's answer time (bench/overload.bench.ts). The signals go out from here instead, in the order
// they were asked for, at most HAND_OFF_CONCURRENCY at once per API process; a session's wake-up asked
// for while another waits to go out rides on that one (the workflow reads the whole inbox). A hand-off
// that fails, or is lost with its process, is made again by the sweeps (api/housekeeping.ts): within
// seconds once the storing connection has closed, else after 30 s.
import { AsyncResource } from 'node:async_hooks';
import type { ApiDeps } from './context.ts';
import { callTemporal } from './temporal-call.ts';

/** Signals in flight at once from one API process: enough for hundreds a second at the engine's 100-200 ms under load. */
const HAND_OFF_CONCURRENCY = 32;

interface Waiting {
  call: () => Promise<void>;
  /** Named in the log when the hand-off fails. */
  log: Record<string, unknown>;
  sweep: string;
}

type HandOffDeps = Pick<ApiDeps, 'temporal' | 'config' | 'logger'>;

export class HandOffs {
  /** Not yet sent, by key, in the order first asked for (a Map keeps a key's place when its value is replaced). */
  private readonly waiting = new Map<string, Waiting>();
  private running = 0;
  private drained: Array<() => void> = [];

  constructor(
    private readonly deps: HandOffDeps,
    private readonly concurrency = HAND_OFF_CONCURRENCY,
  ) {}

  /**
   * Sends `call` soon, never rejecting. `key` names its workflow: a hand-off still waiting under the same key
   * is replaced by this one, which goes out after this one's data was stored. One already in flight is not:
   * the workflow may have read before this data was stored.
   */
  submit(key: string, call: () => Promise<void>, what: { log: Record<string, unknown>; sweep: string }): void {
    // Run in the asker's async context: its trace (the request's span) and Temporal call context go with it.
    this.waiting.set(key, { call: AsyncResource.bind(call), log: what.log, sweep: what.sweep });
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

  private pump(): void {
    while (this.running < this.concurrency && this.waiting.size > 0) {
      const [key, next] = this.waiting.entries().next().value as [string, Waiting];
      this.waiting.delete(key);
      this.running++;
      void callTemporal(this.deps, next.call)
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
