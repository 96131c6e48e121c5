// The API's periodic clean-up: uploaded files that no media row names (older than
// MEDIA_ORPHAN_GRACE_MS), Idempotency-Keys past their 24 h and device logins expired for longer than
// they lived (DEVICE_CODE_TTL_MS; until then a late poll still hears expired_token); and answers stored
// without their approval workflow taking them, handed to it (approvals/reconcile.ts). A pass runs at
// start and then every HOUSEKEEPING_INTERVAL_MS (0: never). It also wakes the child sessions of agent
// calls that lost their workflows mid-turn (api/sessions/stranded-calls.ts), so their callers stop
// waiting. Every API process runs it: a pass only deletes what nothing uses, a workflow takes one answer,
// and a woken session ends a stranded turn once, so two processes sweeping at once merely repeat each
// other's work. It starts webhook deliveries and eval runs the API recorded but never started
// (api/webhooks/publish.ts, api/evals/start-late.ts).
// Apart, on its own shorter timer: the sweep of sends whose wake-up was lost.
import type { Config } from '../lib/config.ts';
import type { Logger } from '../lib/logger.ts';
import type { Storage } from '../lib/storage.ts';
import type { Db } from '../store/db.ts';
import type { ApiDeps } from './context.ts';
import { deleteExpiredIdempotencyKeys } from '../store/idempotency-keys.ts';
import { deleteExpiredDeviceAuthorizations } from '../store/device-authorizations.ts';
import { deleteStaleMcpToolCalls } from '../store/mcp-tool-calls.ts';
import { deleteStaleOAuth } from '../store/oauth.ts';
import { deleteStalePushConfigs } from '../store/a2a-push.ts';
import { pruneConnectStates } from '../store/mcp-connections.ts';
import { MCP_CONNECT_TTL_SECONDS } from '../contract/operations/tools.ts';
import { refreshRunningOut } from './mcp-oauth/refresh-ahead.ts';
import type { MasterKey } from '../lib/master-key.ts';
import { IDEMPOTENCY_KEY_TTL_MS } from './idempotency.ts';
import { sweepOrphanMedia } from './sessions/orphan-media.ts';
import { reconcileStrandedAnswers } from './approvals/reconcile.ts';
import { sweepUntakenSends } from './sessions/wake.ts';
import { sweepPendingAnswers } from './approvals/handover.ts';
import { sweepStrandedCalls } from './sessions/stranded-calls.ts';
import { startUnstartedDeliveries } from './webhooks/publish.ts';
import { startUnstartedRuns } from './evals/start-late.ts';

/** An MCP call's record older than this belongs to a process that died mid-call. */
const STALE_MCP_CALL_MS = 60 * 60_000;

export interface Housekeeping {
  /** Stops the timer and waits for a pass under way. */
  stop(): Promise<void>;
}

export function startHousekeeping(deps: {
  config: Config;
  db: Db;
  logger: Logger;
  storage: Storage;
  temporal: ApiDeps['temporal'];
  masterKeys: readonly MasterKey[];
}): Housekeeping {
  const sends = startSendSweep(deps);
  const { intervalMs, mediaOrphanGraceMs } = deps.config.housekeeping;
  if (intervalMs === 0) return { stop: () => sends.stop() };
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  /** The reconcile of stranded answers under way: a slow one (its workflows' queues unpolled) runs alone. */
  let reconciling: Promise<void> | undefined;
  /** Cuts a reconcile short at stop: it may take minutes, and what it leaves the next pass (any process's) does. */
  const stopping = new AbortController();

  async function pass(): Promise<void> {
    try {
      const media = await sweepOrphanMedia(deps.db, deps.storage, mediaOrphanGraceMs);
      const keys = await deleteExpiredIdempotencyKeys(deps.db, IDEMPOTENCY_KEY_TTL_MS);
      const logins = await deleteExpiredDeviceAuthorizations(deps.db, deps.config.device.codeTtlMs);
      // An MCP call answers within a send's longest wait (10 minutes): an older row's process died mid-call.
      const mcpCalls = await deleteStaleMcpToolCalls(deps.db, STALE_MCP_CALL_MS);
      // OAuth authorizations past their use, and registered clients that never got a grant.
      const oauth = await deleteStaleOAuth(deps.db);
      // Sign-ins to MCP servers nobody finished (or finished), once they can no longer be.
      const signIns = await pruneConnectStates(deps.db, MCP_CONNECT_TTL_SECONDS);
      // A2A push configs a week past their task's end, with nothing left to send.
      const pushConfigs = await deleteStalePushConfigs(deps.db);
      if (media.removed > 0 || keys > 0 || logins > 0 || mcpCalls > 0 || oauth > 0 || signIns > 0 || pushConfigs > 0)
        deps.logger.info(
          {
            orphanFiles: media.removed,
            expiredIdempotencyKeys: keys,
            expiredDeviceLogins: logins,
            staleMcpCalls: mcpCalls,
            staleOAuthRecords: oauth,
            staleMcpSignIns: signIns,
            stalePushConfigs: pushConfigs,
          },
          'housekeeping',
        );
    } catch (error) {
      deps.logger.warn({ err: error }, 'housekeeping pass failed; the next one tries again');
    }
    try {
      // Sign-ins to MCP servers whose tokens run out before the next pass: refreshed now, off the calls' path.
      const signIns = await refreshRunningOut(deps, intervalMs, stopping.signal);
      if (signIns.refreshed > 0 || signIns.signInNeeded > 0) deps.logger.info(signIns, 'housekeeping: MCP sign-ins refreshed ahead');
    } catch (error) {
      deps.logger.warn({ err: error }, 'could not refresh MCP sign-ins ahead; the next pass tries again');
    }
    try {
      // Webhook deliveries the API recorded and could not start (the process died, Temporal did not answer).
      const deliveries = await startUnstartedDeliveries(deps);
      if (deliveries > 0) deps.logger.info({ deliveries }, 'housekeeping: webhook deliveries started late');
      // Eval runs recorded whose workflow could not be started then.
      const runs = await startUnstartedRuns(deps);
      if (runs > 0) deps.logger.info({ evalRuns: runs }, 'housekeeping: eval runs started late');
    } catch (error) {
      deps.logger.warn({ err: error }, 'recorded webhook deliveries or eval runs not started; the next pass tries again');
    }
    try {
      // Calls older than a pass whose child sessions lost their workflows: woken to end their turns.
      await sweepStrandedCalls(deps, intervalMs);
    } catch (error) {
      deps.logger.warn({ err: error }, 'could not check the child sessions of agent calls; the next pass tries again');
    }
    // Apart, and not awaited: Temporal out of reach, or workflows no worker polls (each hand-over waits up
    // to its deadline), must not hold up the sweeps above, nor they this. One at a time.
    if (!reconciling && !stopping.signal.aborted) reconciling = reconcilePass();
  }

  /** One reconcile, cut short by the stop through an AbortSignal of its own (a client call leaves a listener on it). */
  function reconcilePass(): Promise<void> {
    const pass = new AbortController();
    const onStop = () => pass.abort();
    stopping.signal.addEventListener('abort', onStop, { once: true });
    return reconcileStrandedAnswers({ ...deps, taskQueue: deps.config.taskQueue }, undefined, pass.signal)
      .then(() => undefined)
      .catch((error: unknown) => {
        if (pass.signal.aborted) return;
        deps.logger.warn({ err: error }, 'could not check approval workflows for stranded answers; the next pass tries again');
      })
      .finally(() => {
        stopping.signal.removeEventListener('abort', onStop);
        reconciling = undefined;
      });
  }

  function schedule(delayMs: number): void {
    timer = setTimeout(() => {
      running = pass().finally(() => {
        running = undefined;
        if (!stopped) schedule(intervalMs);
      });
    }, delayMs);
    // Never what keeps a process alive.
    timer.unref();
  }
  schedule(0);

  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      stopping.abort();
      await Promise.all([running, reconciling, sends.stop()]);
    },
  };
}

/**
 * A send or an answer no workflow has taken this many sweep intervals after the API stored it (30 s by
 * default) is taken to have lost its hand-over. Not sooner: workers far behind take a while to read what
 * was handed over, and waking their workflows again would only add to what they have to do. One whose
 * storing connection has closed (its API died before the hand-over) is taken sooner (store/backend-gone.ts).
 */
const HAND_OVER_LOST_AFTER_SWEEPS = 6;

/**
 * Every SEND_SWEEP_INTERVAL_MS: wakes the workflows of sessions whose taken sends none has read for
 * HAND_OVER_LOST_AFTER_SWEEPS intervals (api/sessions/wake.ts), and hands approval workflows the answers the API
 * stored that they have not taken for as long (api/approvals/handover.ts). A workflow takes each once,
 * so two sweeps at once repeat each other's work and nothing more.
 */
function startSendSweep(deps: Parameters<typeof startHousekeeping>[0]): Housekeeping {
  const everyMs = deps.config.housekeeping.sendSweepMs;
  if (everyMs === 0) return { stop: async () => undefined };
  let stopped = false;
  let running: Promise<void> | undefined;
  async function sweep(): Promise<void> {
    const sessions = await sweepUntakenSends(deps, everyMs * HAND_OVER_LOST_AFTER_SWEEPS);
    const answers = await sweepPendingAnswers(deps, everyMs * HAND_OVER_LOST_AFTER_SWEEPS);
    if (sessions > 0 || answers > 0) deps.logger.info({ sessions, answers }, 'handed workflows the sends and answers they had not taken');
  }
  const timer = setInterval(() => {
    if (running) return;
    running = sweep()
      .catch((error: unknown) => {
        if (!stopped) deps.logger.warn({ err: error }, 'could not sweep the waiting sends and answers; the next pass tries again');
      })
      .finally(() => (running = undefined));
  }, everyMs);
  timer.unref();
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
