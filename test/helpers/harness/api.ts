// Runs the API in-process on a random port with its own pool, so tests speak real HTTP to it.
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import type { Express } from 'express';
import { createApp } from '../../../api/app.ts';
import { applyHttpTimeouts } from '../../../api/http-timeouts.ts';
import { HandOffs } from '../../../api/hand-offs.ts';
import { createEventHub, type EventHub } from '../../../api/streaming/event-hub.ts';
import { startHousekeeping } from '../../../api/housekeeping.ts';
import { createStorage } from '../../../lib/storage.ts';
import { createLogger } from '../../../lib/logger.ts';
import { loadMasterKeys } from '../../../lib/master-key.ts';
import { lazyTemporalClient } from '../../../lib/temporal.ts';
import { createPool, type Db } from '../../../store/db.ts';
import type { Config } from '../../../lib/config.ts';
import { testConfig } from './env.ts';
import { observe } from './contract-check.ts';

export interface TestApi {
  url: string;
  /** The Express app itself, for tests that inspect what is mounted. */
  app: Express;
  db: Db;
  config: Config;
  events: EventHub;
  /** The application_name of the hub's LISTEN connection, to find it in pg_stat_activity. */
  eventsApplicationName: string;
  /** Every log line the API wrote, as parsed JSON. */
  logs: Record<string, unknown>[];
  close(): Promise<void>;
}

/** `wrapDb` wraps the API's pool (e.g. to count its queries); everything in the API uses the wrapper. */
export async function startTestApi(env: Record<string, string> = {}, options: { wrapDb?: (db: Db) => Db } = {}): Promise<TestApi> {
  const config = testConfig({ LOG_LEVEL: 'info', ...env });
  const logs: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      for (const line of chunk.toString('utf8').split('\n')) if (line.trim()) logs.push(JSON.parse(line) as Record<string, unknown>);
      callback();
    },
  });
  const logger = createLogger({ level: config.logLevel }, sink);
  const pool = createPool(config.databaseUrl!, 5, config.database);
  const db = options.wrapDb ? options.wrapDb(pool) : pool;
  const temporal = lazyTemporalClient(config);
  const eventsApplicationName = `test-events-${randomUUID().slice(0, 8)}`;
  const events = await createEventHub({ databaseUrl: config.databaseUrl!, db, logger, applicationName: eventsApplicationName });
  const storage = createStorage(config);
  const masterKeys = loadMasterKeys(config);
  const handOffs = new HandOffs({ temporal, config, logger });
  const { app } = createApp({ config, db, logger, masterKey: masterKeys[0]!, masterKeys, temporal, events, storage, handOffs });
  const housekeeping = startHousekeeping({ config, db, logger, storage, temporal, masterKeys });
  // Every response is checked against the OpenAPI document (contract-check.ts).
  const server = http.createServer((req, res) => {
    observe(req, res);
    app(req, res);
  });
  applyHttpTimeouts(server, config);
  server.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    app,
    db,
    config,
    events,
    eventsApplicationName,
    logs,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await handOffs.drain(5_000);
      handOffs.close();
      await housekeeping.stop();
      await events.close();
      await temporal.close().catch(() => undefined);
      await db.end();
    },
  };
}
