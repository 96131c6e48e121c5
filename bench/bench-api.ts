// The real API in this process, as the API benchmarks measure it: production logging level with the
// lines dropped (stdout stays one JSON document, the bench's), a rate limiter that does all its work
// but never answers 429, and a throwaway user with an all-scopes key. close() removes that user, so
// a shared DATABASE_URL is left as it was found.
import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp } from '../api/app.ts';
import { HandOffs } from '../api/hand-offs.ts';
import { createEventHub } from '../api/streaming/event-hub.ts';
import { loadConfig, type Config } from '../lib/config.ts';
import { parseMasterKey } from '../lib/master-key.ts';
import { scopesFor } from '../contract/scopes.ts';
import { lazyTemporalClient } from '../lib/temporal.ts';
import { insertKey } from '../store/api-keys.ts';
import { createPool, type Db } from '../store/db.ts';
import { createUser } from '../store/users.ts';
import type { Infra } from './infra.ts';
import { discardingLogger } from './temporal-runtime.ts';

export interface BenchApi {
  /** `http://127.0.0.1:<port>`, no trailing slash. */
  url: string;
  db: Db;
  config: Config;
  userId: string;
  key: string;
  auth: { authorization: string };
  /** Server, event hub, Temporal connection, the user (its keys, agents, sessions go by cascade), pool; each step runs even if one before it failed. */
  close(): Promise<void>;
}

export interface BenchApiOptions {
  /** Point the config at the infra's Temporal; otherwise the client is never dialled. */
  temporal?: boolean;
  /** Further config variables, over the defaults here. */
  env?: Record<string, string>;
}

export async function startBenchApi(infra: Infra, options: BenchApiOptions = {}): Promise<BenchApi> {
  const config = loadConfig({
    NODE_ENV: 'development',
    DATABASE_URL: infra.databaseUrl(),
    ...(options.temporal ? { TEMPORAL_ADDRESS: infra.temporalAddress(), TEMPORAL_NAMESPACE: loadConfig().temporalNamespace } : {}),
    DATA_DIR: infra.scratchDir,
    LOG_LEVEL: 'info',
    // Far above what any run sends, so the limiter does all its work but never answers 429.
    RATE_LIMIT_POINTS: '1000000000',
    AUTH_FAILURE_LIMIT_POINTS: '1000000000',
    ...options.env,
  });
  const db = createPool(infra.databaseUrl(), 10);
  const temporal = lazyTemporalClient(config);
  const logger = discardingLogger();
  let server: Server | undefined;
  let events: Awaited<ReturnType<typeof createEventHub>> | undefined;
  let userId: string | undefined;
  const handOffs = new HandOffs({ temporal, config, logger });

  const close = async () => {
    /** Each step runs whatever the one before did; a failure costs only its own step. */
    const quietly = async (step: () => Promise<unknown>) => {
      try {
        await step();
      } catch {
        // Nothing to stdout or stderr: the bench's document and log stay as they were.
      }
    };
    const listening = server;
    if (listening) {
      await quietly(
        () =>
          new Promise<void>((resolve) => {
            listening.closeAllConnections();
            listening.close(() => resolve());
          }),
      );
    }
    await quietly(() => handOffs.drain(5_000));
    handOffs.close();
    if (events) await quietly(() => events!.close());
    await quietly(() => temporal.close());
    // Everything the bench made goes with the user (ON DELETE CASCADE).
    if (userId) await quietly(() => db.query('DELETE FROM users WHERE id = $1', [userId]));
    await quietly(() => db.end());
  };

  try {
    events = await createEventHub({ databaseUrl: infra.databaseUrl(), db, logger });
    const masterKey = parseMasterKey(randomBytes(32).toString('base64url'));
    const listening = createApp({ config, db, logger, masterKey, masterKeys: [masterKey], temporal, events, handOffs }).app.listen(
      0,
      '127.0.0.1',
    );
    server = listening;
    await new Promise<void>((resolve, reject) => {
      listening.once('listening', resolve);
      listening.once('error', reject);
    });
    const url = `http://127.0.0.1:${(listening.address() as AddressInfo).port}`;
    const user = await createUser(db, { name: `bench-${randomBytes(4).toString('hex')}` });
    userId = user.id;
    const { key } = await insertKey(db, { userId, name: 'bench', scopes: scopesFor(user) });
    return { url, db, config, userId, key, auth: { authorization: `Bearer ${key}` }, close };
  } catch (error) {
    await close();
    throw error;
  }
}
