// `npm run migrate`: applies pending migrations to DATABASE_URL and exits. The API and the workers
// migrate on start as well, so this is for operators who want the schema changed before they roll
// out new processes (the advisory lock in migrate.ts makes running both at once safe).
import { loadConfig } from '../lib/config.ts';
import { createPool } from './db.ts';
import { migrate, readMigrations } from './migrate.ts';

const config = loadConfig();
if (!config.databaseUrl) {
  console.error('DATABASE_URL is not set: it names the database to migrate (npm start migrates its embedded one itself).');
  process.exit(1);
}
const db = createPool(config.databaseUrl, 1, config.database);
try {
  const applied = await migrate(db);
  const latest = readMigrations().at(-1)?.version ?? 0;
  console.log(
    applied.length
      ? `applied migrations ${applied.join(', ')}; the schema is at version ${latest}`
      : `nothing to apply; the schema is at version ${latest}`,
  );
} catch (error) {
  console.error(`migration failed: ${(error as Error).message}`);
  process.exitCode = 1;
} finally {
  await db.end();
}
