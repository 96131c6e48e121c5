// Runs the API in-process on a random port with its own pool, so tests speak real HTTP to it.
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { createApp } from '../../api/app.ts';
import { createLogger } from '../../lib/logger.ts';
import { loadMasterKey } from '../../lib/master-key.ts';
import { lazyTemporalClient } from '../../lib/temporal.ts';
import { createPool, type Db } from '../../store/db.ts';
import type { Config } from '../../lib/config.ts';
import { testConfig } from './env.ts';

export interface TestApi {
  url: string;
  db: Db;
  config: Config;
  /** Every log line the API wrote, as parsed JSON. */
  logs: Record<string, unknown>[];
  close(): Promise<void>;
}

export async function startTestApi(env: Record<string, string> = {}): Promise<TestApi> {
  const config = testConfig({ LOG_LEVEL: 'info', ...env });
  const logs: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      for (const line of chunk.toString('utf8').split('\n')) if (line.trim()) logs.push(JSON.parse(line) as Record<string, unknown>);
      callback();
    },
  });
  const logger = createLogger({ level: config.logLevel }, sink);
  const db = createPool(config.databaseUrl!, 5);
  const temporal = lazyTemporalClient(config);
  const { app } = createApp({ config, db, logger, masterKey: loadMasterKey(config), temporal });
  const server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    db,
    config,
    logs,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await temporal.connection.close().catch(() => undefined);
      await db.end();
    },
  };
}
