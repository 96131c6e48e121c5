// The worker process (`npm run worker`): runs workflows and activities from TASK_QUEUE against
// DATABASE_URL and TEMPORAL_ADDRESS.
import { NativeConnection, Runtime } from '@temporalio/worker';
import { startProcessBase, onShutdown, exitOnStartupError } from '../lib/process.ts';
import { openDatabase } from '../store/open.ts';
import { temporalAddress } from '../lib/temporal.ts';
import { temporalLogger } from '../lib/temporal-logger.ts';
import { createWorker } from './create-worker.ts';
import { loadMasterKey } from '../lib/master-key.ts';

async function main(): Promise<void> {
  const { config, logger } = startProcessBase('worker');
  const db = await openDatabase(config, logger, 'worker');
  // Signals are handled by onShutdown below, which stops the worker in order.
  // Core (Rust) logs are forwarded to our logger too, so every line the worker writes is JSON.
  Runtime.install({
    telemetryOptions: { logging: { forward: {} } },
    logger: temporalLogger(logger.child({ component: 'temporal' })),
    shutdownSignals: [],
  });
  const connection = await NativeConnection.connect({ address: temporalAddress(config) });
  const taskQueue = config.taskQueue;
  const worker = await createWorker({
    connection,
    namespace: config.temporalNamespace,
    taskQueue,
    deps: { db, logger, config, masterKeys: [loadMasterKey(config)] },
  });
  const running = worker.run();
  onShutdown(logger, async () => {
    // shutdown() stops polling; run() settles once in-flight tasks finish (or the grace time ends).
    worker.shutdown();
    await running;
    await connection.close();
    await db.end();
  });
  logger.info({ taskQueue, namespace: config.temporalNamespace }, 'worker polling');
  process.send?.({ type: 'ready' });
  await running;
}

main().catch((error: unknown) => exitOnStartupError('worker', error));
