// Aborts reach this worker's model steps through PostgreSQL at once (store/turn-aborts.ts: the
// cancelled turn workflow announces itself), so the steps need not heartbeat every half second for
// Temporal to bring the abort: each heartbeat is a write to Temporal's persistence, and fifty streams
// made a hundred a second. A step watches its turn while it runs; a notice for it aborts the model
// call, and the step then confirms the cancellation with Temporal (confirm-abort.ts). The connection
// opens with the first step this worker runs. A notice that is lost (the connection was down, the step
// was not watching yet) leaves the abort to the step's next heartbeat.
import type { Logger } from '../../lib/logger.ts';
import { openListener, type Listener } from '../../store/listener.ts';
import { TURN_ABORTS_CHANNEL } from '../../store/turn-aborts.ts';

export interface WatchedTurn {
  /** Aborts when an abort of the turn is announced. */
  signal: AbortSignal;
  /** The step is over: stop watching. */
  stop(): void;
}

export class AbortNotices {
  private readonly watched = new Map<string, Set<AbortController>>();
  private listener: Promise<Listener> | undefined;
  private closed = false;

  constructor(private readonly options: { databaseUrl: string; logger: Logger; applicationName?: string }) {}

  watch(sessionId: string, turnId: string): WatchedTurn {
    if (!this.listener && !this.closed) {
      this.listener = openListener({
        databaseUrl: this.options.databaseUrl,
        channel: TURN_ABORTS_CHANNEL,
        applicationName: this.options.applicationName ?? 'agent-service-turn-aborts',
        logger: this.options.logger.child({ component: 'abort-notices' }),
        onNotification: (payload) => this.abort(payload),
        // Nothing else is asked of this connection: a dead one would go unnoticed for minutes.
        checkEveryMs: 30_000,
      });
    }
    const key = `${sessionId}:${turnId}`;
    const controller = new AbortController();
    let set = this.watched.get(key);
    if (!set) this.watched.set(key, (set = new Set()));
    set.add(controller);
    return {
      signal: controller.signal,
      stop: () => {
        const current = this.watched.get(key);
        if (current?.delete(controller) && current.size === 0) this.watched.delete(key);
      },
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    await (await this.listener)?.close();
  }

  private abort(key: string): void {
    for (const controller of this.watched.get(key) ?? []) controller.abort();
  }
}
