// Idempotency keys: one row per (user, route, key), inserted by the first request that uses the key
// before it acts, holding the ids it acts with; then, once it has acted, whether it was refused for
// good. The primary key decides between concurrent twins.
import type { Db } from './db.ts';

export interface IdempotencyKeyRef {
  userId: string;
  route: string;
  key: string;
}

/** A definitive refusal (a 4xx), as the problem+json it was answered with. */
export interface StoredRefusal {
  status: number;
  type: string;
  title: string;
  detail: string;
  extra?: Record<string, unknown>;
}

export interface IdempotencyRecord<T> {
  fingerprint: string;
  result: T;
  /** True when this call inserted the row: the request is the first with its key. */
  created: boolean;
  /** The first request has finished acting (false while it acts, or if it never finished). */
  settled: boolean;
  refusal: StoredRefusal | null;
}

const LIVE = `created_at > now() - $4::float8 * interval '1 millisecond'`;

/**
 * Inserts the key's row unless a live one (younger than `ttlMs`) exists, and answers the row that
 * stands. An expired row is replaced, as if it had already been deleted.
 */
export async function claimIdempotencyKey<T>(
  db: Db,
  input: IdempotencyKeyRef & { fingerprint: string; result: T; ttlMs: number },
): Promise<IdempotencyRecord<T>> {
  const params = [input.userId, input.route, input.key, input.fingerprint, JSON.stringify(input.result), input.ttlMs];
  for (;;) {
    const claimed = await db.query(
      `INSERT INTO idempotency_keys (user_id, route, key, fingerprint, result) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (user_id, route, key) DO UPDATE
         SET fingerprint = EXCLUDED.fingerprint, result = EXCLUDED.result, created_at = now(), settled_at = NULL, refusal = NULL
         WHERE idempotency_keys.created_at <= now() - $6::float8 * interval '1 millisecond'
       RETURNING 1`,
      params,
    );
    if (claimed.rowCount) return { fingerprint: input.fingerprint, result: input.result, created: true, settled: false, refusal: null };
    const found = await readIdempotencyKey<T>(db, input, input.ttlMs);
    // Gone between the two statements (it expired and was deleted): claim it again.
    if (found) return { ...found, created: false };
  }
}

/** The live row of a key, if any. */
export async function readIdempotencyKey<T>(
  db: Db,
  ref: IdempotencyKeyRef,
  ttlMs: number,
): Promise<Omit<IdempotencyRecord<T>, 'created'> | undefined> {
  const { rows } = await db.query<{ fingerprint: string; result: T; settled: boolean; refusal: StoredRefusal | null }>(
    `SELECT fingerprint, result, settled_at IS NOT NULL AS settled, refusal FROM idempotency_keys
     WHERE user_id = $1 AND route = $2 AND key = $3 AND ${LIVE}`,
    [ref.userId, ref.route, ref.key, ttlMs],
  );
  return rows[0];
}

/**
 * Records that a request with the key has acted: refused for good (`refusal`) or not (null). The
 * first refusal stands; a retry of an unknown outcome (a 503) that is then refused records its own.
 */
export async function settleIdempotencyKey(db: Db, ref: IdempotencyKeyRef, refusal: StoredRefusal | null): Promise<void> {
  await db.query(
    `UPDATE idempotency_keys SET settled_at = coalesce(settled_at, now()), refusal = $4
     WHERE user_id = $1 AND route = $2 AND key = $3 AND refusal IS NULL`,
    [ref.userId, ref.route, ref.key, refusal === null ? null : JSON.stringify(refusal)],
  );
}

/** Deletes rows older than `ttlMs`; answers how many. */
export async function deleteExpiredIdempotencyKeys(db: Db, ttlMs: number): Promise<number> {
  const { rowCount } = await db.query(`DELETE FROM idempotency_keys WHERE created_at <= now() - $1::float8 * interval '1 millisecond'`, [
    ttlMs,
  ]);
  return rowCount ?? 0;
}
