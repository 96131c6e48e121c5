// Stored sets of eval cases, per user and name, versioned: each PUT adds the next version, and a run
// names the set (its latest version then) or one version, which it keeps (eval_runs.set_version).
import type { Db } from './db.ts';
import { inTransaction } from './db.ts';
import type { Expectation } from '../contract/operations/evals.ts';

export interface EvalSetCase {
  input: string;
  expect?: Expectation;
}

export interface EvalSet {
  name: string;
  version: number;
  cases: EvalSetCase[];
  createdAt: Date;
}

interface SetRow {
  name: string;
  version: number;
  cases: EvalSetCase[];
  created_at: Date;
}

const toSet = (row: SetRow): EvalSet => ({ name: row.name, version: row.version, cases: row.cases, createdAt: row.created_at });

export async function putSet(
  db: Db,
  input: { userId: string; name: string; cases: EvalSetCase[]; keyId: string | null },
): Promise<EvalSet> {
  return inTransaction(db, async (client) => {
    // Two PUTs of one name at once take the next two versions, in turn.
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`eval-set:${input.userId}:${input.name}`]);
    const { rows } = await client.query<SetRow>(
      `INSERT INTO eval_sets (user_id, name, version, cases, key_id)
       SELECT $1, $2, coalesce(max(version), 0) + 1, $3, $4 FROM eval_sets WHERE user_id = $1 AND name = $2
       RETURNING name, version, cases, created_at`,
      [input.userId, input.name, JSON.stringify(input.cases), input.keyId],
    );
    return toSet(rows[0]!);
  });
}

/** The set's `version`, or its latest. */
export async function getSet(db: Db, userId: string, name: string, version?: number): Promise<EvalSet | undefined> {
  const { rows } = await db.query<SetRow>(
    `SELECT name, version, cases, created_at FROM eval_sets
      WHERE user_id = $1 AND name = $2 AND ($3::int IS NULL OR version = $3) ORDER BY version DESC LIMIT 1`,
    [userId, name, version ?? null],
  );
  return rows[0] && toSet(rows[0]);
}

/** Each set at its latest version, by name. */
export async function listSets(db: Db, userId: string): Promise<EvalSet[]> {
  const { rows } = await db.query<SetRow>(
    `SELECT DISTINCT ON (name) name, version, cases, created_at FROM eval_sets WHERE user_id = $1 ORDER BY name, version DESC`,
    [userId],
  );
  return rows.map(toSet);
}
