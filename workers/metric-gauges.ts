// Gauges a worker reads from PostgreSQL at scrape time: turns in flight, approvals waiting and the
// NOTIFY queue are the whole service's, kept in PostgreSQL, not any one worker's (take the max across workers).
import { Gauge } from 'prom-client';
import type { Db } from '../store/db.ts';
import type { Logger } from '../lib/logger.ts';
import { countTurns, countWaitingApprovals, notificationQueueUsage } from '../store/metric-reads.ts';

/** A failed read leaves the gauge out of this scrape (and logs why) rather than failing the whole scrape. */
export function registerWorkerGauges(db: Db, logger: Logger): void {
  new Gauge({
    name: 'agent_service_turns',
    help: 'Turns of the whole service by state: running, waiting (for a person or a client tool) or queued (sent, not started).',
    labelNames: ['state'] as const,
    async collect() {
      this.reset();
      try {
        const counts = await countTurns(db);
        for (const state of ['running', 'waiting', 'queued'] as const) this.set({ state }, counts[state]);
      } catch (error) {
        logger.warn({ err: error }, 'could not count turns for the metrics');
      }
    },
  });
  /** A gauge of one number read at scrape. */
  const readAtScrape = (name: string, help: string, what: string, read: () => Promise<number>) =>
    new Gauge({
      name,
      help,
      async collect() {
        this.reset();
        try {
          this.set(await read());
        } catch (error) {
          logger.warn({ err: error }, `could not read ${what} for the metrics`);
        }
      },
    });
  readAtScrape(
    'agent_service_postgres_notify_queue_usage',
    "Fraction of PostgreSQL's NOTIFY queue in use (0 to 1): grows when a listening connection stops reading; full, appends fail.",
    'the NOTIFY queue',
    () => notificationQueueUsage(db),
  );
  readAtScrape('agent_service_approvals_waiting', 'Approvals of the whole service waiting for an answer.', 'approvals', () =>
    countWaitingApprovals(db),
  );
}
