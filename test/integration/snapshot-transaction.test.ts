// A snapshot transaction (store/db.ts inSnapshotTransaction, which a fork runs in) that PostgreSQL
// refuses because a row it locks was updated after its snapshot is run again, not answered 500: a fork
// of a session streaming a reply met that refusal in 2 of 30 tries (its new session's foreign key locks
// the origin, which the worker updates many times a second). Other errors are not tried again.
import { afterAll, beforeAll, expect, test } from 'vitest';
import { randomUUID } from 'node:crypto';
import { createPool, inSnapshotTransaction, type Db } from '../../store/db.ts';
import { testConfig } from '../helpers/harness/env.ts';

let db: Db;
const table = `snapshot_test_${randomUUID().replaceAll('-', '')}`;
beforeAll(async () => {
  db = createPool(testConfig().databaseUrl!, 3);
  await db.query(`CREATE TABLE ${table} (id int PRIMARY KEY, value int NOT NULL)`);
  await db.query(`INSERT INTO ${table} VALUES (1, 0)`);
});
afterAll(async () => {
  await db.query(`DROP TABLE IF EXISTS ${table}`);
  await db.end();
});

test('refused for a write after its snapshot: the transaction runs again from the start and commits', async () => {
  let tries = 0;
  const result = await inSnapshotTransaction(db, async (client) => {
    tries++;
    const { rows } = await client.query<{ value: number }>(`SELECT value FROM ${table} WHERE id = 1`);
    if (tries > 1) {
      await client.query(`SELECT 1 FROM ${table} WHERE id = 1 FOR KEY SHARE`);
      return rows[0]!.value;
    }
    // After the first try's snapshot, another transaction holds the row under its lock (as a send holds
    // its session's) and updates it; the key-share lock (a foreign key's check) waits for it to commit.
    const other = await db.connect();
    try {
      await other.query('BEGIN');
      await other.query(`SELECT 1 FROM ${table} WHERE id = 1 FOR UPDATE`);
      await other.query(`UPDATE ${table} SET value = value + 1 WHERE id = 1`);
      const locked = client.query(`SELECT 1 FROM ${table} WHERE id = 1 FOR KEY SHARE`);
      locked.catch(() => undefined);
      await new Promise((resolve) => setTimeout(resolve, 100));
      await other.query('COMMIT');
      await locked;
    } finally {
      other.release();
    }
    return rows[0]!.value;
  });
  expect(tries).toBe(2);
  // The second try read the row as the other write left it.
  expect(result).toBe(1);
});

test('other errors are not tried again', async () => {
  let tries = 0;
  await expect(
    inSnapshotTransaction(db, async (client) => {
      tries++;
      await client.query('SELECT * FROM no_such_table_here');
    }),
  ).rejects.toMatchObject({ code: '42P01' });
  expect(tries).toBe(1);
});

test('refused every time: it gives up after a few tries with PostgreSQL’s refusal', async () => {
  let tries = 0;
  await expect(
    inSnapshotTransaction(db, async () => {
      tries++;
      throw Object.assign(new Error('could not serialize access due to concurrent update'), { code: '40001' });
    }),
  ).rejects.toMatchObject({ code: '40001' });
  expect(tries).toBe(4);
});
