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

/** One step of an orderly stop, named in the log so an operator sees which one a stop waited on. */
export interface ShutdownStep {
  name: string;
  run: () => Promise<void>;
}

/**
 * Runs `steps` in order once, on the first SIGINT/SIGTERM (or when the parent launcher goes away), then
 * exits. A stop is bounded by `deadlineMs` (SHUTDOWN_DEADLINE_MS): past it the process logs the step it
 * was waiting on and exits 1 rather than hanging, as an orchestrator's SIGKILL would end it anyway, but
 * without saying why. What a stop leaves undone is recovered by the rest of the service: a worker's
 * activities are run again (workers/worker-life.ts), an API's stored sends and answers handed over by
 * another's sweep.
 */
export function onShutdown(logger: Logger, steps: ShutdownStep[], deadlineMs: number): void {
  let stopping = false;
  const handler = (reason: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ reason, deadlineMs }, 'shutting down');
    let current = 'starting';
    const deadline = setTimeout(() => {
      logger.error({ step: current, deadlineMs }, 'shutdown did not end in time (SHUTDOWN_DEADLINE_MS); exiting with this step undone');
      process.exit(1);
    }, deadlineMs);
    const run = async () => {
      for (const step of steps) {
        current = step.name;
        const started = performance.now();
        await step.run();
        logger.debug({ step: step.name, ms: Math.round(performance.now() - started) }, 'shutdown step done');
      }
    };
    run().then(
      () => {
        clearTimeout(deadline);
        process.exit(0);
      },
      (error: unknown) => {
        logger.error({ err: error, step: current }, 'shutdown failed');
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

/**
 * Puts what kills the process in its structured log, with the stack, before Node's own crash (which is
 * kept: after an uncaught exception the process's state is unknown). Without it the launcher says only
 * "api exited (code 1)" and the stack is in stderr, interleaved with every other child's output.
 */
export function logCrashes(logger: Logger): void {
  process.on('uncaughtExceptionMonitor', (error, origin) => {
    logger.fatal({ err: error, origin }, 'the process is crashing');
    logger.flush?.();
  });
}

export function exitOnStartupError(name: string, error: unknown): never {
  console.error(`${name} could not start: ${(error as Error).message}`);
  process.exit(1);
}
