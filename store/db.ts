// The PostgreSQL pool. One per process; every store module takes it as an argument.
import pg from 'pg';
import { causeChain } from '../lib/workflow-safe/errors.ts';
import { isStalePlan, PreparingClient } from './prepared-client.ts';

export type Db = pg.Pool;
export type DbClient = pg.PoolClient;

// BIGINT columns (event seq, byte counts) come back as numbers; they stay far below 2^53.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

export interface PoolSettings {
  /** Opening a connection, and waiting for a free one when the pool is full. */
  connectTimeoutMs: number;
  /** Server-side `statement_timeout` of every pooled connection (lock waits included); 0 for none. */
  statementTimeoutMs: number;
  /** Parameterized statements prepared once per connection (store/prepared-client.ts). */
  preparedStatements: boolean;
}

/** The defaults of DATABASE_CONNECT_TIMEOUT_MS, DATABASE_STATEMENT_TIMEOUT_MS and DATABASE_PREPARED_STATEMENTS (lib/config.ts). */
export const DEFAULT_POOL_SETTINGS: PoolSettings = { connectTimeoutMs: 5_000, statementTimeoutMs: 30_000, preparedStatements: true };

/** Without both bounds a stalled database would queue every request forever instead of answering 503. */
export function createPool(connectionString: string, max = 10, settings: PoolSettings = DEFAULT_POOL_SETTINGS): Db {
  const pool = new pg.Pool({
    connectionString,
    max,
    ...(settings.preparedStatements ? { Client: PreparingClient } : {}),
    idleTimeoutMillis: 30_000,
    connectionTimeoutMillis: settings.connectTimeoutMs,
    ...(settings.statementTimeoutMs > 0 ? { statement_timeout: settings.statementTimeoutMs } : {}),
    // A connection dropped without a FIN (a host gone, a network cut) is noticed instead of waited on.
    keepAlive: true,
  });
  // An idle client losing its connection must not crash the process; the pool replaces it.
  pool.on('error', () => undefined);
  return pool;
}

export async function inTransaction<T>(db: Db, work: (client: DbClient) => Promise<T>): Promise<T> {
  const client = await db.connect();
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

/** How often a snapshot transaction is tried when PostgreSQL refuses it for a concurrent write. */
const SNAPSHOT_TRIES = 4;

/**
 * A transaction that reads one snapshot (REPEATABLE READ), run again from the start when PostgreSQL
 * refuses it for a write that committed after the snapshot (40001: a row the transaction locks, such as
 * a foreign key's parent, was updated meanwhile). Such a refusal means "again", not "wrong": a session
 * streaming a reply updates its row many times a second. `work` must be safe to run more than once.
 */
export async function inSnapshotTransaction<T>(db: Db, work: (client: DbClient) => Promise<T>): Promise<T> {
  for (let tries = 1; ; tries++) {
    try {
      return await inTransaction(db, async (client) => {
        await client.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ');
        return work(client);
      });
    } catch (error) {
      if ((error as { code?: string }).code !== '40001' || tries >= SNAPSHOT_TRIES) throw error;
      // A moment apart, so that the writer it met (a stream's updates come in bursts) is likely done.
      await new Promise((resolve) => setTimeout(resolve, 10 + Math.random() * 40));
    }
  }
}

/** PostgreSQL error codes that mean "not now" rather than "wrong": class 08, shutdowns, too many clients. */
const UNAVAILABLE_CODES = /^(08...|57P0[123]|53300|57014)$/;
/** Node's socket errors, and pg's own words for a connection it gave up on. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
]);
const GAVE_UP = /timeout exceeded when trying to connect|connection timeout|timeout expired|Connection terminated|Query read timeout/i;

/**
 * The database did not answer in time or could not be reached: a connect or statement timeout
 * (57014, also raised when a lock wait outlasts the statement timeout), a refused or reset
 * connection, a server shutting down, a connection's prepared statement outdated by a migration (the
 * connection prepares it anew: tried again, it runs). Such a request is answered 503, never 500.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  return causeChain(error).some((cause) => {
    if (isStalePlan(cause)) return true;
    const code = (cause as { code?: unknown }).code;
    if (typeof code === 'string' && (UNAVAILABLE_CODES.test(code) || NETWORK_CODES.has(code))) return true;
    if (cause instanceof AggregateError && cause.errors.some((inner) => isDatabaseUnavailable(inner))) return true;
    return GAVE_UP.test(cause.message);
  });
}
