// The pool prepares each parameterized statement once per connection (store/prepared-client.ts), and a
// migration that changes a table under a prepared `SELECT *` (a rolling upgrade) costs no failed request
// outside a transaction and at most one transaction per connection.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createPool, DEFAULT_POOL_SETTINGS, inTransaction, isDatabaseUnavailable, type Db } from '../../store/db.ts';
import { testConfig } from '../helpers/harness/env.ts';

const databaseUrl = testConfig().databaseUrl!;
const table = `prepared_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
let admin: Db;

beforeAll(async () => {
  admin = createPool(databaseUrl, 1, { ...DEFAULT_POOL_SETTINGS, preparedStatements: false });
  await admin.query(`CREATE TABLE ${table} (id int PRIMARY KEY, a text)`);
  await admin.query(`INSERT INTO ${table} VALUES (1, 'one'), (2, 'two')`);
});

afterAll(async () => {
  await admin.query(`DROP TABLE IF EXISTS ${table}`);
  await admin.end();
});

/** A pool of one connection, so that every statement meets the statements prepared before it. */
function onePool(preparedStatements = true): Db {
  return createPool(databaseUrl, 1, { ...DEFAULT_POOL_SETTINGS, preparedStatements });
}

async function preparedTexts(db: Db): Promise<string[]> {
  const { rows } = await db.query<{ statement: string }>('SELECT statement FROM pg_prepared_statements');
  return rows.map((row) => row.statement);
}

describe('statements prepared once per connection', () => {
  test('a parameterized statement is prepared at its first run and answers the same at each', async () => {
    const db = onePool();
    try {
      const text = `SELECT a FROM ${table} WHERE id = $1`;
      expect((await db.query(text, [1])).rows).toEqual([{ a: 'one' }]);
      expect((await db.query(text, [2])).rows).toEqual([{ a: 'two' }]);
      expect(await preparedTexts(db)).toEqual([text]);
    } finally {
      await db.end();
    }
  });

  test('off (DATABASE_PREPARED_STATEMENTS=off), nothing is prepared', async () => {
    const db = onePool(false);
    try {
      expect((await db.query(`SELECT a FROM ${table} WHERE id = $1`, [1])).rows).toEqual([{ a: 'one' }]);
      expect(await preparedTexts(db)).toEqual([]);
    } finally {
      await db.end();
    }
  });
});

describe('a table changed under a prepared SELECT * (a migration while the process runs)', () => {
  test('PostgreSQL refuses the prepared statement afterwards: what the pool must get past', async () => {
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    const scratch = `${table}_raw`;
    try {
      await admin.query(`CREATE TABLE ${scratch} (id int)`);
      const statement = { name: 'raw', text: `SELECT * FROM ${scratch} WHERE id = $1`, values: [1] };
      await client.query(statement);
      await admin.query(`ALTER TABLE ${scratch} ADD COLUMN b int`);
      await expect(client.query(statement)).rejects.toMatchObject({ code: '0A000', message: 'cached plan must not change result type' });
    } finally {
      await client.end();
      await admin.query(`DROP TABLE IF EXISTS ${scratch}`);
    }
  });

  test('outside a transaction, the statement is prepared anew and answers with the new column', async () => {
    const db = onePool();
    const text = `SELECT * FROM ${table} WHERE id = $1`;
    try {
      expect((await db.query(text, [1])).rows).toEqual([{ id: 1, a: 'one' }]);
      await admin.query(`ALTER TABLE ${table} ADD COLUMN b text DEFAULT 'new'`);
      expect((await db.query(text, [1])).rows).toEqual([{ id: 1, a: 'one', b: 'new' }]);
      expect((await db.query(text, [2])).rows).toEqual([{ id: 2, a: 'two', b: 'new' }]);
    } finally {
      await db.end();
      await admin.query(`ALTER TABLE ${table} DROP COLUMN IF EXISTS b`);
    }
  });

  test('inside a transaction, that transaction fails and the next one on the connection runs', async () => {
    const db = onePool();
    const text = `SELECT * FROM ${table} WHERE id = $1`;
    const read = () => inTransaction(db, async (client) => (await client.query(text, [2])).rows);
    try {
      expect(await read()).toEqual([{ id: 2, a: 'two' }]);
      await admin.query(`ALTER TABLE ${table} ADD COLUMN c int DEFAULT 3`);
      const failed = await read().then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(failed).toMatchObject({ code: '0A000' });
      // Answered 503 with Retry-After by the API, as a database restart is: tried again, it runs.
      expect(isDatabaseUnavailable(failed)).toBe(true);
      expect(await read()).toEqual([{ id: 2, a: 'two', c: 3 }]);
      // The same connection throughout: the pool holds one.
      expect((await db.query('SELECT count(*)::int AS n FROM pg_prepared_statements')).rows[0]).toEqual({ n: 2 });
    } finally {
      await db.end();
      await admin.query(`ALTER TABLE ${table} DROP COLUMN IF EXISTS c`);
    }
  });
});
