// Every activity the worker registers, built from its dependencies (pool, config, keys).
import type { Db } from '../store/db.ts';
import type { Logger } from '../lib/logger.ts';
import type { Config } from '../lib/config.ts';
import type { MasterKey } from '../lib/master-key.ts';
import { systemActivities } from './system.ts';
import { turnBookkeeping } from './turn/bookkeeping.ts';
import { modelStepActivities } from './turn/model-step.ts';
import { sharedSchemaChecks } from './tools/schema-checks.ts';
import type { AbortNotices } from './turn/abort-notices.ts';
import { toolActivities } from './turn/tools.ts';
import { compactionActivities } from './turn/compaction.ts';
import { withCompactionPlaces } from './turn/compaction-places.ts';
import { ContextWindows } from './model/context-windows.ts';
import { ListedModels } from './model/listed-models.ts';
import { DEFAULT_BASE_URLS } from './model/providers.ts';
import { revisionCache } from './turn/revision-cache.ts';
import type { ListedPriceOf } from './turn/budget-hold.ts';
import { createStorage } from '../lib/storage.ts';
import { webhookActivities } from './webhooks.ts';
import { approvalActivities } from './approvals.ts';
import { seatDispatchActivities } from './approval-seat-dispatch.ts';
import { scheduleActivities } from './schedules.ts';
import { triggerActivities } from './triggers.ts';
import { agentCallActivities } from './agent-calls.ts';
import { evalActivities } from './evals.ts';

export interface ActivityDeps {
  db: Db;
  logger: Logger;
  config: Config;
  /** The current master key first, then previous ones still accepted for reading secrets. */
  masterKeys: readonly MasterKey[];
  /** Turn aborts told to this worker at once (its owner closes it); without it aborts come with heartbeats. */
  abortNotices?: AbortNotices;
}

/** Tenants' schema checks running at once per process (a thread each); more wait their turn. */
const SCHEMA_CHECK_THREADS = 2;

export function createActivities(deps: ActivityDeps) {
  const revisionOf = revisionCache(deps.db);
  const bundleOf = async (agentId: string, revision: number) => (await revisionOf(agentId, revision)).bundle;
  // One per worker: what a provider's error taught it about a model's window serves every later step.
  // OpenRouter lists its models' windows and prices; the list is read from the operator's base URL only.
  const openrouterList = `${(deps.config.providers.openrouter.baseUrl ?? DEFAULT_BASE_URLS.openrouter!).replace(/\/+$/, '')}/models`;
  const openrouterModels = new ListedModels(openrouterList);
  const contextWindows = new ContextWindows(
    { overrides: deps.config.context.windows, defaultTokens: deps.config.context.defaultWindowTokens },
    { openrouter: openrouterModels },
  );
  // What a budget holds a call of a model at when neither the operator nor the service's table prices it.
  const listedPrice: ListedPriceOf = async (ref) => (ref.providerId === 'openrouter' ? openrouterModels.priceOf(ref.modelId) : undefined);
  return {
    ...systemActivities(deps),
    ...turnBookkeeping(deps),
    ...modelStepActivities({
      ...deps,
      revisionOf,
      deltaFlushMs: deps.config.limits.deltaFlushMs,
      storage: createStorage(deps.config),
      schemaChecks: sharedSchemaChecks({ timeoutMs: deps.config.limits.schemaCheckTimeoutMs, threads: SCHEMA_CHECK_THREADS }),
      contextWindows,
      listedPrice,
    }),
    // A compaction takes one of its user's places as a model step does.
    ...withCompactionPlaces(
      { db: deps.db, logger: deps.logger, runningPerUser: deps.config.limits.runningTurnsPerUser },
      compactionActivities({ ...deps, revisionOf, contextWindows, listedPrice }),
    ),
    ...toolActivities({ ...deps, revisionOf }),
    ...webhookActivities(deps),
    ...approvalActivities({ ...deps, bundleOf, revisionOf }),
    ...seatDispatchActivities({ ...deps, bundleOf }),
    ...scheduleActivities(deps),
    ...agentCallActivities({ db: deps.db, taskQueue: deps.config.taskQueue, revisionOf, limits: deps.config.limits }),
    ...evalActivities({
      db: deps.db,
      config: deps.config,
      masterKeys: deps.masterKeys,
      listedPrice,
      taskQueue: deps.config.taskQueue,
      bundleOf,
    }),
    ...triggerActivities({
      db: deps.db,
      taskQueue: deps.config.taskQueue,
      bundleOf,
      openApprovalsPerUser: deps.config.limits.openApprovalsPerUser,
    }),
  };
}

export type Activities = ReturnType<typeof createActivities>;
