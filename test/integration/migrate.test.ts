// Migrations run at every start of every process; two starting together must not collide.
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import { afterAll, expect, test } from 'vitest';
import { inject } from 'vitest';
import { createPool, type Db } from '../../store/db.ts';
import { migrate, readMigrations } from '../../store/migrate.ts';

const name = `migrate_${randomUUID().replace(/-/g, '')}`;
const server = createPool(inject('databaseUrl'), 1);
const pools: Db[] = [];

function poolFor(database: string): Db {
  const url = new URL(inject('databaseUrl'));
  url.pathname = `/${database}`;
  const pool = createPool(url.toString(), 2);
  pools.push(pool);
  return pool;
}

afterAll(async () => {
  await Promise.all(pools.map((pool) => pool.end()));
  await server.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await server.end();
});

test('three processes migrating a fresh database at once apply each migration exactly once', async () => {
  await server.query(`CREATE DATABASE ${name}`);
  const results = await Promise.all([migrate(poolFor(name)), migrate(poolFor(name)), migrate(poolFor(name))]);
  const all = readMigrations().map((migration) => migration.version);
  expect(results.flat().sort((a, b) => a - b)).toEqual(all);
  const { rows } = await poolFor(name).query<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version');
  expect(rows.map((row) => row.version)).toEqual(all);
  // A later start finds nothing to do.
  expect(await migrate(poolFor(name))).toEqual([]);
});

test('npm run migrate migrates the database DATABASE_URL names, and says so', async () => {
  const fresh = `${name}_cli`;
  await server.query(`CREATE DATABASE ${fresh}`);
  try {
    const url = new URL(inject('databaseUrl'));
    url.pathname = `/${fresh}`;
    const run = () => promisify(execFile)('npm', ['run', '--silent', 'migrate'], { env: { ...process.env, DATABASE_URL: url.toString() } });
    const latest = readMigrations().at(-1)!.version;
    expect((await run()).stdout).toContain(`the schema is at version ${latest}`);
    const { rows } = await poolFor(fresh).query<{ count: number }>('SELECT count(*)::int AS count FROM schema_migrations');
    expect(rows[0]!.count).toBe(latest);
    expect((await run()).stdout).toContain('nothing to apply');
  } finally {
    await Promise.all(pools.splice(0).map((pool) => pool.end()));
    await server.query(`DROP DATABASE IF EXISTS ${fresh} WITH (FORCE)`);
  }
});
