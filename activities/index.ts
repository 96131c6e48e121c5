// Every activity the worker registers, built from its dependencies (pool, logger, keys).
import type { Db } from '../store/db.ts';
import type { Logger } from '../lib/logger.ts';
import { systemActivities } from './system.ts';

export interface ActivityDeps {
  db: Db;
  logger: Logger;
}

export function createActivities(deps: ActivityDeps) {
  return {
    ...systemActivities(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;
