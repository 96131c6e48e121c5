// The database of a long-running process (the API, a worker): its pool, migrated before anything
// uses it. Every process migrates on start; the advisory lock in migrate.ts makes them take turns.
import type { Config } from '../lib/config.ts';
import type { Logger } from '../lib/logger.ts';
import { createPool, type Db } from './db.ts';
import { migrate } from './migrate.ts';

export async function openDatabase(config: Config, logger: Logger, processName: string): Promise<Db> {
  if (!config.databaseUrl) {
    throw new Error(
      `DATABASE_URL is not set. Run "npm start" for a self-contained service, or set DATABASE_URL for "npm run ${processName}".`,
    );
  }
  const db = createPool(config.databaseUrl, 10, config.database);
  const applied = await migrate(db);
  if (applied.length) logger.info({ applied }, 'applied migrations');
  return db;
}
