// Launcher child: the embedded PostgreSQL. Options arrive as JSON in argv[2].
import { runGuarded } from './guarded-child.ts';
import { startEmbeddedPostgres } from './embedded-postgres.ts';

const options = JSON.parse(process.argv[2] ?? '{}') as { dataDir: string; port: number };

runGuarded('postgres', async () => {
  const running = await startEmbeddedPostgres(options);
  return { info: { databaseUrl: running.databaseUrl }, stop: running.stop };
});
