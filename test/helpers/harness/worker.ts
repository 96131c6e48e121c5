// A worker on its own task queue, running the pre-built workflow bundle from the global setup.
import { AbortNotices } from '../../../activities/turn/abort-notices.ts';
import { randomUUID } from 'node:crypto';
import { inject } from 'vitest';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, type Worker } from '@temporalio/worker';
import { createWorker } from '../../../workers/create-worker.ts';
import { createLogger } from '../../../lib/logger.ts';
import { createPool, type Db } from '../../../store/db.ts';
import { loadMasterKeys } from '../../../lib/master-key.ts';
import { temporalDataConverter } from '../../../lib/temporal-data-converter.ts';
import { testConfig } from './env.ts';
import { installQuietRuntime } from './quiet-runtime.ts';

export interface TestWorker {
  taskQueue: string;
  worker: Worker;
  client: Client;
  db: Db;
  stop(): Promise<void>;
}

/** `env` overrides configuration (e.g. short retry timings); the task queue is always the worker's own. */
export async function startTestWorker(env: Record<string, string> = {}): Promise<TestWorker> {
  installQuietRuntime();
  const taskQueue = env.TASK_QUEUE ?? `test-${randomUUID()}`;
  const config = testConfig({ ...env, TASK_QUEUE: taskQueue });
  const address = inject('temporalAddress');
  const db = createPool(inject('databaseUrl'), 5, config.database);
  const nativeConnection = await NativeConnection.connect({ address });
  const logger = createLogger({ level: 'silent' });
  const abortNotices = new AbortNotices({ databaseUrl: inject('databaseUrl'), logger });
  const worker = await createWorker({
    connection: nativeConnection,
    namespace: 'default',
    taskQueue,
    deps: { db, logger, config, masterKeys: loadMasterKeys(config), abortNotices },
    workflowBundle: { codePath: inject('workflowBundlePath') },
  });
  const running = worker.run();
  const connection = await Connection.connect({ address });
  // The same payload codec as the service's: results and inputs read as the service wrote them.
  const client = new Client({ connection, namespace: 'default', dataConverter: temporalDataConverter(config, loadMasterKeys(config)) });
  return {
    taskQueue,
    worker,
    client,
    db,
    async stop() {
      worker.shutdown();
      await running;
      await nativeConnection.close();
      await connection.close();
      await abortNotices.close();
      await db.end();
    },
  };
}
