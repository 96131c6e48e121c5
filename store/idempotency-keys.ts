// Idempotency keys: one row per (user, route, key), inserted by the first request that uses the key
// before it acts, holding the ids it acts with. The primary key decides between concurrent twins.
import type { Db } from './db.ts';

export interface IdempotencyRecord<T> {
  fingerprint: string;
  result: T;
  /** True when this call inserted the row: the request is the first with its key. */
  created: boolean;
}

/**
 * Inserts the key's row unless a live one (younger than `ttlMs`) exists, and answers the row that
 * stands. An expired row is replaced, as if it had already been deleted.
 */
export async function claimIdempotencyKey<T>(
  db: Db,
  input: { userId: string; route: string; key: string; fingerprint: string; result: T; ttlMs: number },
): Promise<IdempotencyRecord<T>> {
  const params = [input.userId, input.route, input.key, input.fingerprint, JSON.stringify(input.result), input.ttlMs];
  for (;;) {
    const claimed = await db.query(
      `INSERT INTO idempotency_keys (user_id, route, key, fingerprint, result) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (user_id, route, key) DO UPDATE
         SET fingerprint = EXCLUDED.fingerprint, result = EXCLUDED.result, created_at = now()
         WHERE idempotency_keys.created_at <= now() - $6::float8 * interval '1 millisecond'
       RETURNING 1`,
      params,
    );
    if (claimed.rowCount) return { fingerprint: input.fingerprint, result: input.result, created: true };
    const { rows } = await db.query<{ fingerprint: string; result: T }>(
      `SELECT fingerprint, result FROM idempotency_keys
       WHERE user_id = $1 AND route = $2 AND key = $3 AND created_at > now() - $4::float8 * interval '1 millisecond'`,
      [input.userId, input.route, input.key, input.ttlMs],
    );
    // Gone between the two statements (it expired and was deleted): claim it again.
    if (rows[0]) return { ...rows[0], created: false };
  }
}

/** Deletes rows older than `ttlMs`; answers how many. */
export async function deleteExpiredIdempotencyKeys(db: Db, ttlMs: number): Promise<number> {
  const { rowCount } = await db.query(`DELETE FROM idempotency_keys WHERE created_at <= now() - $1::float8 * interval '1 millisecond'`, [
    ttlMs,
  ]);
  return rowCount ?? 0;
}
