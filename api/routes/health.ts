// GET /auth/health: public, so load balancers and the launcher can poll it. 200 when PostgreSQL and
// Temporal both answer within the timeout; otherwise 503 naming the part that did not.
// GET /auth/health/live: the process serves (a liveness probe asks nothing of the dependencies).
// GET /auth/health/ready: PostgreSQL, Temporal, and workers polling the task queue.
import { OPERATIONS } from '../../contract/operations/index.ts';
import { defineRoute } from '../route.ts';
import type { ApiDeps } from '../context.ts';
import type { Logger } from '../../lib/logger.ts';
import { pingDatabase } from '../../store/health.ts';
import { withTimeout } from '../../lib/with-timeout.ts';
import { countPollers, POLLER_FRESH_MS, type PollerCount } from '../health/worker-pollers.ts';

const CHECK_TIMEOUT_MS = 2_000;

type Check = { ok: true } | { ok: false; error: string };

/** Workers of this task queue, as Temporal sees them; not ready while either kind of task has no poller. */
async function checkWorkers(deps: ApiDeps, log: Logger) {
  const { taskQueue } = deps.config;
  let pollers: PollerCount | undefined;
  const reached = await check(
    async () => {
      pollers = await countPollers(deps.temporal.connection, deps.temporal.client.options.namespace, taskQueue);
    },
    'Temporal (task queue)',
    log,
  );
  if (!reached.ok || !pollers) return { ...reached, taskQueue };
  const missing = [pollers.workflow === 0 && 'workflow', pollers.activity === 0 && 'activity'].filter(Boolean);
  if (missing.length === 0) return { ok: true, taskQueue, pollers };
  const seconds = Math.round(POLLER_FRESH_MS / 1000);
  return {
    ok: false,
    taskQueue,
    pollers,
    error: `no worker polls task queue "${taskQueue}" for ${missing.join(' or ')} tasks (none seen in the last ${seconds} s): turns wait until one does`,
  };
}

/**
 * The route is public, so a failure is named but not detailed (driver messages carry internal
 * addresses); the detail goes to the log under the request's trace id.
 */
async function check(work: () => Promise<unknown>, what: string, log: Logger): Promise<Check> {
  try {
    await withTimeout(work(), CHECK_TIMEOUT_MS, what);
    return { ok: true };
  } catch (error) {
    log.warn({ err: error, part: what }, 'health check failed');
    const timedOut = (error as Error).message.includes('did not answer within');
    return { ok: false, error: timedOut ? `${what} did not answer within ${CHECK_TIMEOUT_MS} ms` : `${what} is not reachable` };
  }
}

export function healthRoutes(deps: ApiDeps) {
  return [
    defineRoute(OPERATIONS.getHealth, {
      async handle({ req }) {
        const [postgres, temporal] = await Promise.all([
          check(() => pingDatabase(deps.db), 'PostgreSQL', req.log),
          check(() => deps.temporal.connection.workflowService.getSystemInfo({}), 'Temporal', req.log),
        ]);
        const ok = postgres.ok && temporal.ok;
        return { status: ok ? 200 : 503, body: { ok, checks: { postgres, temporal } }, headers: { 'cache-control': 'no-store' } };
      },
    }),
    defineRoute(OPERATIONS.getLiveness, {
      async handle() {
        return { status: 200, body: { ok: true as const }, headers: { 'cache-control': 'no-store' } };
      },
    }),
    defineRoute(OPERATIONS.getReadiness, {
      async handle({ req }) {
        const [postgres, temporal, workers] = await Promise.all([
          check(() => pingDatabase(deps.db), 'PostgreSQL', req.log),
          check(() => deps.temporal.connection.workflowService.getSystemInfo({}), 'Temporal', req.log),
          checkWorkers(deps, req.log),
        ]);
        const ok = postgres.ok && temporal.ok && workers.ok;
        const serving = ok ? 'everything' : postgres.ok ? 'reads' : 'nothing';
        return {
          status: ok ? 200 : 503,
          body: { ok, serving, checks: { postgres, temporal, workers } },
          headers: { 'cache-control': 'no-store' },
        };
      },
    }),
  ];
}
