// PostgreSQL pool usage of this process, read from its pool at scrape time (the gauge sums the
// pools watched, should a process hold several).
import { Gauge } from 'prom-client';
import type pg from 'pg';

const pools = new Set<pg.Pool>();

new Gauge({
  name: 'agent_service_db_pool_connections',
  help: 'PostgreSQL pool of this process: connections open (total), idle, and callers waiting for one (waiting).',
  labelNames: ['state'] as const,
  collect() {
    let total = 0;
    let idle = 0;
    let waiting = 0;
    for (const pool of pools) {
      total += pool.totalCount;
      idle += pool.idleCount;
      waiting += pool.waitingCount;
    }
    this.set({ state: 'total' }, total);
    this.set({ state: 'idle' }, idle);
    this.set({ state: 'waiting' }, waiting);
  },
});

/** Counts this pool in the gauge (once ended, it counts nothing). */
export function watchPool(pool: pg.Pool): void {
  pools.add(pool);
}
