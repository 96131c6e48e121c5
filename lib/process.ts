// Start-up and shutdown shared by the API and worker processes: configuration, logger, and a single
// place that turns SIGINT/SIGTERM into an orderly stop. Their database is store/open.ts's.
import { loadConfig, type Config } from './config.ts';
import { createLogger, type Logger } from './logger.ts';

export interface ProcessBase {
  config: Config;
  logger: Logger;
}

export function startProcessBase(name: string): ProcessBase {
  const config = loadConfig();
  return { config, logger: createLogger({ level: config.logLevel, name }) };
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
