// The worker process (`npm run worker`): runs workflows and activities from TASK_QUEUE against
// DATABASE_URL and TEMPORAL_ADDRESS.
import { NativeConnection, Runtime } from '@temporalio/worker';
import { startProcessBase, onShutdown, exitOnStartupError, logCrashes } from '../lib/process.ts';
import { openDatabase } from '../store/open.ts';
import { temporalConnectionOptions } from '../lib/temporal.ts';
import { missingSearchAttributes, registrationHint } from '../lib/search-attribute-registry.ts';
import { temporalLogger } from '../lib/temporal-logger.ts';
import { createWorker } from './create-worker.ts';
import { AbortNotices } from '../activities/turn/abort-notices.ts';
import { startWorkerObservability } from './observability.ts';
import { prebuiltWorkflowBundle } from './workflow-code.ts';
import { cachedSourceBundle } from './source-bundle-cache.ts';
import { loadMasterKeys } from '../lib/master-key.ts';
import { WorkerLife } from './worker-life.ts';
import type { Logger } from '../lib/logger.ts';

async function main(): Promise<void> {
  const { config, logger } = startProcessBase('worker');
  logCrashes(logger);
  const observability = await startWorkerObservability(config, logger);
  const db = await openDatabase(config, logger, 'worker');
  // Signals are handled by onShutdown below, which stops the worker in order.
  // Core (Rust) logs are forwarded to our logger too, so every line the worker writes is JSON.
  Runtime.install({
    telemetryOptions: { logging: { forward: {} }, ...(observability.temporalMetrics ? { metrics: observability.temporalMetrics } : {}) },
    logger: temporalLogger(logger.child({ component: 'temporal' })),
    shutdownSignals: [],
  });
  const connection = await NativeConnection.connect(temporalConnectionOptions(config));
  const connectedAt = performance.now();
  const taskQueue = config.taskQueue;
  await checkSearchAttributes(connection, config.temporalNamespace, logger);
  const abortNotices = new AbortNotices({ databaseUrl: config.databaseUrl!, logger });
  // The build's bundle for these plugins; from source, the bundle of this code kept under DATA_DIR (bundled at
  // the first start); else (a build without it) the worker bundles at start.
  const workflowBundle =
    prebuiltWorkflowBundle(observability.plugins) ?? (await cachedSourceBundle(config.dataDir, logger, observability.plugins));
  const life = new WorkerLife({ databaseUrl: config.databaseUrl!, db, namespace: config.temporalNamespace, taskQueue, logger });
  const worker = await createWorker({
    connection,
    namespace: config.temporalNamespace,
    taskQueue,
    plugins: observability.plugins,
    activityInterceptors: [life.interceptor()],
    ...(workflowBundle ? { workflowBundle: { codePath: workflowBundle } } : {}),
    deps: { db, logger, config, masterKeys: loadMasterKeys(config), abortNotices },
  });
  const running = worker.run();
  await life.start(worker.client!, worker.options.identity);
  await observability.serve(db);
  onShutdown(
    logger,
    [
      // shutdown() stops polling; run() settles once in-flight tasks finish (activities are cancelled after
      // the grace time, workers/create-worker.ts).
      {
        name: 'the worker',
        run: () => {
          worker.shutdown();
          return running;
        },
      },
      { name: 'the worker life', run: () => life.close() },
      { name: 'the Temporal connection', run: () => connection.close() },
      { name: 'the abort notices', run: () => abortNotices.close() },
      { name: 'the database pool', run: () => db.end() },
      { name: 'observability', run: () => observability.close() },
    ],
    config.shutdownDeadlineMs,
  );
  // Which workflow code runs (the build's bundle, the source's kept one, or null: bundled at start) and how long
  // the start took once connected: webpack's bundling makes most of it when there is no bundle.
  const startMs = Math.round(performance.now() - connectedAt);
  logger.info({ taskQueue, namespace: config.temporalNamespace, workflowBundle: workflowBundle ?? null, startMs }, 'worker polling');
  process.send?.({ type: 'ready' });
  await running;
}

/**
 * Stops the worker when its namespace lacks a search attribute its workflows write (every start
 * would fail). A frontend that does not let this worker list them (Temporal Cloud's, for one) is
 * trusted: the operator registered them there.
 */
async function checkSearchAttributes(connection: NativeConnection, namespace: string, logger: Logger): Promise<void> {
  let missing: string[];
  try {
    missing = await missingSearchAttributes(connection, namespace);
  } catch (error) {
    logger.warn({ err: error, namespace }, 'could not list the search attributes of the namespace; assuming they are registered');
    return;
  }
  if (missing.length > 0) {
    throw new Error(`Temporal namespace "${namespace}" lacks the search attributes ${missing.join(', ')}: ${registrationHint(namespace)}`);
  }
}

main().catch((error: unknown) => exitOnStartupError('worker', error));
