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
import { ContextWindows } from './model/context-windows.ts';
import { ListedWindows } from './model/listed-windows.ts';
import { DEFAULT_BASE_URLS } from './model/providers.ts';
import { revisionCache } from './turn/revision-cache.ts';
import { createStorage } from '../lib/storage.ts';
import { webhookActivities } from './webhooks.ts';
import { approvalActivities } from './approvals.ts';
import { scheduleActivities } from './schedules.ts';
import { triggerActivities } from './triggers.ts';

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
  // OpenRouter lists its models' windows; the list is read from the operator's base URL only.
  const openrouterList = `${(deps.config.providers.openrouter.baseUrl ?? DEFAULT_BASE_URLS.openrouter!).replace(/\/+$/, '')}/models`;
  const contextWindows = new ContextWindows(
    { overrides: deps.config.context.windows, defaultTokens: deps.config.context.defaultWindowTokens },
    { openrouter: new ListedWindows(openrouterList) },
  );
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
    }),
    ...compactionActivities({ ...deps, revisionOf, contextWindows }),
    ...toolActivities({ ...deps, revisionOf }),
    ...webhookActivities(deps),
    ...approvalActivities({ ...deps, bundleOf }),
    ...scheduleActivities(deps),
    ...triggerActivities({
      db: deps.db,
      taskQueue: deps.config.taskQueue,
      bundleOf,
      openApprovalsPerUser: deps.config.limits.openApprovalsPerUser,
    }),
  };
}

export type Activities = ReturnType<typeof createActivities>;
