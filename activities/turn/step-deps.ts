// What a model step needs from its worker, and how often a step (or a tool, or a compaction) heartbeats.
import type { Db } from '../../store/db.ts';
import type { Logger } from '../../lib/logger.ts';
import type { Config } from '../../lib/config.ts';
import type { MasterKey } from '../../lib/master-key.ts';
import type { Storage } from '../../lib/storage.ts';
import type { ContextWindows } from '../model/context-windows.ts';
import type { SchemaChecks } from '../tools/schema-checks.ts';
import type { AbortNotices } from './abort-notices.ts';
import type { ListedPriceOf } from './budget-hold.ts';
import type { RevisionOf } from './revision-cache.ts';

export interface ModelStepDeps {
  db: Db;
  logger: Logger;
  /** Checks against tenants' schemas (custom tool parameters, jsonReply), in threads with a time budget. */
  schemaChecks: SchemaChecks;
  config: Config;
  masterKeys: readonly MasterKey[];
  /** How long streamed text is batched before it is written as one delta event. */
  deltaFlushMs: number;
  revisionOf: RevisionOf;
  /** Where uploaded files are read from, for file parts in the conversation. */
  storage: Storage;
  /** Aborts told to this worker at once; without them an abort comes with the step's next heartbeat. */
  abortNotices?: AbortNotices;
  /** The models' context windows, with what this worker learned from providers' errors. */
  contextWindows: ContextWindows;
  /** The price a provider lists for a model, for a budget's hold (OpenRouter's model list). */
  listedPrice?: ListedPriceOf;
}

/**
 * How often a step heartbeats: Temporal learns that it lives, and brings an abort with the answer when
 * no notice brought it sooner (abort-notices.ts). Every 5 s, or a quarter of the heartbeat timeout when
 * that is shorter, so a late heartbeat or two never times a live step out.
 */
export function heartbeatEvery(heartbeatTimeoutMs: number | undefined): number {
  return Math.max(100, Math.min(5_000, (heartbeatTimeoutMs ?? Infinity) / 4));
}
