// The API process (`npm run api`): listens on HOST:PORT against DATABASE_URL and TEMPORAL_ADDRESS.
import { createApp } from './app.ts';
import { startProcessBase, onShutdown, exitOnStartupError, logCrashes } from '../lib/process.ts';
import { openDatabase } from '../store/open.ts';
import { loadMasterKeys } from '../lib/master-key.ts';
import { lazyTemporalClient } from '../lib/temporal.ts';
import { bootstrapAdmin } from '../store/bootstrap.ts';
import { writeFirstAdminKey } from './first-admin-key.ts';
import { createEventHub } from './streaming/event-hub.ts';
import { createStorage } from '../lib/storage.ts';
import { startHousekeeping } from './housekeeping.ts';
import { startApiObservability } from './observability.ts';
import { HandOffs } from './hand-offs.ts';
import { applyHttpTimeouts } from './http-timeouts.ts';

async function main(): Promise<void> {
  const { config, logger } = startProcessBase('api');
  logCrashes(logger);
  const observability = startApiObservability(config, logger);
  const db = await openDatabase(config, logger, 'api');
  await observability.serve(db);
  if (config.env === 'production') {
    // Production's output goes to log collectors: the first admin key goes to a file only its owner reads.
    await bootstrapAdmin(db, config.adminApiKey, async (key) => {
      const file = await writeFirstAdminKey(config.dataDir, key);
      logger.warn({ file }, 'first start: created the admin user; its API key is in this file (mode 0600): read it, then delete it');
    });
  } else {
    const { createdAdminKey } = await bootstrapAdmin(db, config.adminApiKey);
    if (createdAdminKey) {
      // Printed once, to the console only (never to the structured log): it is not stored anywhere.
      console.log(`\nFirst start: created the admin user. Admin API key (shown once):\n\n  ${createdAdminKey}\n`);
    }
  }
  const temporal = lazyTemporalClient(config);
  // openDatabase has checked DATABASE_URL and migrated through it.
  const events = await createEventHub({ databaseUrl: config.databaseUrl!, db, logger });
  const storage = createStorage(config);
  const masterKeys = loadMasterKeys(config);
  const handOffs = new HandOffs({ temporal, config, logger });
  const { app } = createApp({ config, db, logger, masterKey: masterKeys[0]!, masterKeys, temporal, events, storage, handOffs });
  const housekeeping = startHousekeeping({ config, db, logger, storage, temporal, masterKeys });
  let listening = false;
  const server = app.listen(config.port, config.host, () => {
    listening = true;
    logger.info({ url: `http://${config.host}:${config.port}` }, 'API listening');
    process.send?.({ type: 'ready', url: `http://${config.host}:${config.port}` });
  });
  applyHttpTimeouts(server, config);
  // Before listening, an error (the port taken) ends the start. After it, the server's errors are its
  // accept()'s (EMFILE, ENFILE, ENOBUFS: libuv keeps listening after them): logged, not a reason to drop
  // every open stream and refuse connections while the launcher restarts the process.
  server.on('error', (error) => {
    if (!listening) exitOnStartupError('api', error);
    logger.error({ err: error }, 'the HTTP server could not accept a connection');
  });
  onShutdown(
    logger,
    [
      {
        name: 'the HTTP server',
        run: () =>
          new Promise<void>((resolve) => {
            server.close(() => resolve());
            // SSE streams never finish by themselves and would hold close() open: after the grace period
            // their sockets are destroyed, each stream drops its subscription and timers, and clients
            // reconnect to another API process with Last-Event-ID.
            setTimeout(() => server.closeAllConnections(), 5_000).unref();
          }),
      },
      // The signals of what this process took last; those not sent in time go with the sweeps of the other processes.
      {
        name: 'the hand-offs',
        run: async () => {
          await handOffs.drain(5_000);
          handOffs.close();
        },
      },
      { name: 'housekeeping', run: () => housekeeping.stop() },
      // After the server: until then, the streams still being served need their wakes.
      { name: 'the event hub', run: () => events.close() },
      { name: 'the Temporal connection', run: () => temporal.close().catch(() => undefined) },
      { name: 'the database pool', run: () => db.end() },
      { name: 'observability', run: () => observability.close() },
    ],
    config.shutdownDeadlineMs,
  );
}

main().catch((error: unknown) => exitOnStartupError('api', error));
