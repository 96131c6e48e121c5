// Start-up and shutdown shared by the API and worker processes: configuration, logger, pool,
// migrations, and a single place that turns SIGINT/SIGTERM into an orderly stop.
import { loadConfig, type Config } from './config.ts';
import { createLogger, type Logger } from './logger.ts';
import { createPool, type Db } from '../store/db.ts';
import { migrate } from '../store/migrate.ts';

export interface ProcessBase {
  config: Config;
  logger: Logger;
  db: Db;
}

export async function startProcessBase(name: string): Promise<ProcessBase> {
  const config = loadConfig();
  const logger = createLogger({ level: config.logLevel, name });
  if (!config.databaseUrl) {
    throw new Error(`DATABASE_URL is not set. Run "npm start" for a self-contained service, or set DATABASE_URL for "npm run ${name}".`);
  }
  const db = createPool(config.databaseUrl, 10, config.database);
  const applied = await migrate(db);
  if (applied.length) logger.info({ applied }, 'applied migrations');
  return { config, logger, db };
}

/** Runs `stop` once on the first SIGINT/SIGTERM (or when the parent launcher goes away), then exits. */
export function onShutdown(logger: Logger, stop: () => Promise<void>): void {
  let stopping = false;
  const handler = (reason: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ reason }, 'shutting down');
    stop().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => handler('SIGINT'));
  process.on('SIGTERM', () => handler('SIGTERM'));
  // Started by the launcher with an IPC channel: if the launcher dies (even by SIGKILL) the channel
  // closes, and this process stops rather than living on as an orphan holding ports.
  if (process.send) process.on('disconnect', () => handler('launcher exited'));
}

export function exitOnStartupError(name: string, error: unknown): never {
  console.error(`${name} could not start: ${(error as Error).message}`);
  process.exit(1);
}
