// `npm run temporal:postgres`: a Temporal server on PostgreSQL for running the service against what
// production runs. Point the service at it with TEMPORAL_ADDRESS (printed); stops on Ctrl-C.
//   TEMPORAL_POSTGRES_URL   a PostgreSQL role that may create databases (default: an embedded
//                           PostgreSQL under DATA_DIR/temporal-postgres, started here)
//   TEMPORAL_POSTGRES_PORT  the frontend's gRPC port (default 7233)
//   TEMPORAL_NAMESPACE      the namespace to create (default "default")
import path from 'node:path';
import { startEmbeddedPostgres, type RunningPostgres } from './embedded-postgres.ts';
import { startPostgresTemporal } from './temporal-postgres.ts';
import { freePort } from './ports.ts';

const say = (line: string) => process.stderr.write(`[temporal-postgres] ${line}\n`);
const dataDir = path.resolve(process.env.DATA_DIR ?? '.data', 'temporal-postgres');
let postgres: RunningPostgres | undefined;
let adminUrl = process.env.TEMPORAL_POSTGRES_URL;
if (!adminUrl) {
  postgres = await startEmbeddedPostgres({ dataDir: path.join(dataDir, 'pg'), port: await freePort(), log: say });
  adminUrl = postgres.databaseUrl;
}
const namespace = process.env.TEMPORAL_NAMESPACE ?? 'default';
const temporal = await startPostgresTemporal({
  adminUrl,
  databasePrefix: 'temporal',
  dir: path.join(dataDir, 'server'),
  port: Number(process.env.TEMPORAL_POSTGRES_PORT ?? 7233),
  namespace,
  log: say,
}).catch(async (error: unknown) => {
  await postgres?.stop();
  throw error;
});
say(`ready: TEMPORAL_ADDRESS=${temporal.address} TEMPORAL_NAMESPACE=${namespace}; Ctrl-C stops it`);

let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    say('stopping');
    void temporal
      .stop()
      .then(() => postgres?.stop())
      .then(() => process.exit(0));
  });
}
