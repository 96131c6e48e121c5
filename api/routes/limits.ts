// GET /limits: the calling user's limits and what it holds against each (contract/operations/limits.ts).
import { OPERATIONS } from '../../contract/operations/index.ts';
import { countKeys } from '../../store/api-keys.ts';
import { countCronTriggers, countOpenApprovals, storedBytes } from '../../store/user-holdings.ts';
import { runningSteps } from '../../store/step-slots.ts';
import type { ApiDeps } from '../context.ts';
import type { RateLimiter } from '../middleware/rate-limit.ts';
import { defineRoute } from '../route.ts';
import type { StreamLimiter } from '../streaming/stream-limiter.ts';

export function limitRoutes(deps: ApiDeps, counters: { requests: RateLimiter; streams: StreamLimiter }) {
  const limits = deps.config.limits;
  return [
    defineRoute(OPERATIONS.getLimits, {
      async handle({ principal }) {
        const userId = principal!.userId;
        const [keys, requests, schedules, openApprovals, stored, running] = await Promise.all([
          countKeys(deps.db, userId),
          counters.requests.spent(`user:${userId}`),
          countCronTriggers(deps.db, userId),
          countOpenApprovals(deps.db, userId),
          storedBytes(deps.db, userId),
          runningSteps(deps.db, userId),
        ]);
        return {
          status: 200,
          body: {
            keys: { limit: limits.keysPerUser, used: keys, setting: 'KEYS_PER_USER' },
            openStreams: { limit: limits.openStreamsPerUser, used: counters.streams.open(userId), setting: 'OPEN_STREAMS_PER_USER' },
            requests: {
              limit: limits.rateLimitPoints,
              used: requests,
              setting: 'RATE_LIMIT_POINTS',
              windowSeconds: limits.rateLimitWindowSeconds,
            },
            schedules: { limit: limits.schedulesPerUser, used: schedules, setting: 'SCHEDULES_PER_USER' },
            openApprovals: { limit: limits.openApprovalsPerUser, used: openApprovals, setting: 'OPEN_APPROVALS_PER_USER' },
            storedBytes: { limit: limits.storedBytesPerUser, used: stored, setting: 'STORED_BYTES_PER_USER' },
            runningTurns: { limit: limits.runningTurnsPerUser, used: running, setting: 'RUNNING_TURNS_PER_USER' },
          },
        };
      },
    }),
  ];
}
