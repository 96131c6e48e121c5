// Rate limits shared by every API process: counters live in PostgreSQL (rate-limiter-flexible's
// store). If PostgreSQL stops answering, an in-memory limiter per process takes over rather than
// letting every request through or failing them all.
import { RateLimiterMemory, RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import type { Db } from '../../store/db.ts';
import { RateLimitedError } from '../../lib/workflow-safe/errors.ts';

export interface RateLimiter {
  /** Counts one request for `bucket`; throws RateLimitedError when the bucket is empty. */
  consume(bucket: string): Promise<void>;
  /** Throws RateLimitedError when `bucket` is already empty, counting nothing. */
  refuseIfSpent(bucket: string): Promise<void>;
  /** What `bucket` has spent in its current window. */
  spent(bucket: string): Promise<number>;
}

function limited(msBeforeNext: number): RateLimitedError {
  const retryAfter = Math.max(1, Math.ceil(msBeforeNext / 1000));
  return new RateLimitedError(`Rate limit reached; retry after ${retryAfter} s`, retryAfter);
}

export function createRateLimiter(options: { db: Db; points: number; windowSeconds: number; prefix: string }): RateLimiter {
  const limiter = new RateLimiterPostgres({
    storeClient: options.db,
    storeType: 'pool',
    tableName: 'rate_limits',
    tableCreated: true,
    keyPrefix: options.prefix,
    points: options.points,
    duration: options.windowSeconds,
    clearExpiredByTimeout: true,
    insuranceLimiter: new RateLimiterMemory({ points: options.points, duration: options.windowSeconds }),
  });
  return {
    async consume(bucket) {
      try {
        await limiter.consume(bucket);
      } catch (rejection) {
        if (rejection instanceof RateLimiterRes) throw limited(rejection.msBeforeNext);
        throw rejection;
      }
    },
    async refuseIfSpent(bucket) {
      const state = await limiter.get(bucket);
      if (state && state.remainingPoints <= 0) throw limited(state.msBeforeNext);
    },
    async spent(bucket) {
      return (await limiter.get(bucket))?.consumedPoints ?? 0;
    },
  };
}
