// Stored sets of eval cases, per user and name, versioned: each PUT adds the next version, and a run
// names the set (its latest version then) or one version, which it keeps (eval_runs.set_version).
import type { Db } from './db.ts';
import { inTransaction } from './db.ts';
import { ForbiddenError } from '../lib/workflow-safe/errors.ts';
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
  input: { userId: string; name: string; cases: EvalSetCase[]; keyId: string | null; maxSets: number; maxVersions: number },
): Promise<EvalSet> {
  return inTransaction(db, async (client) => {
    // One user's PUTs in turn: two of one name take the next two versions, and the count of sets holds.
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`eval-sets:${input.userId}`]);
    const { rows: counted } = await client.query<{ sets: number; known: boolean | null }>(
      `SELECT count(DISTINCT name)::int AS sets, bool_or(name = $2) AS known FROM eval_sets WHERE user_id = $1`,
      [input.userId, input.name],
    );
    if (!counted[0]!.known && counted[0]!.sets >= input.maxSets)
      throw new ForbiddenError(`You have ${counted[0]!.sets} eval sets, as many as EVAL_SETS_PER_USER allows; reuse a name`);
    const { rows } = await client.query<SetRow>(
      `INSERT INTO eval_sets (user_id, name, version, cases, key_id)
       SELECT $1, $2, coalesce(max(version), 0) + 1, $3, $4 FROM eval_sets WHERE user_id = $1 AND name = $2
       RETURNING name, version, cases, created_at`,
      [input.userId, input.name, JSON.stringify(input.cases), input.keyId],
    );
    // The oldest versions beyond EVAL_SET_VERSIONS go; a run keeps the version number it ran.
    await client.query('DELETE FROM eval_sets WHERE user_id = $1 AND name = $2 AND version <= $3', [
      input.userId,
      input.name,
      rows[0]!.version - input.maxVersions,
    ]);
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

/** Each set at its latest version, by name, with its count of cases (not the cases). */
export async function listSets(db: Db, userId: string): Promise<Array<Omit<EvalSet, 'cases'> & { caseCount: number }>> {
  const { rows } = await db.query<Omit<SetRow, 'cases'> & { case_count: number }>(
    `SELECT DISTINCT ON (name) name, version, jsonb_array_length(cases) AS case_count, created_at
       FROM eval_sets WHERE user_id = $1 ORDER BY name, version DESC`,
    [userId],
  );
  return rows.map((row) => ({ name: row.name, version: row.version, caseCount: row.case_count, createdAt: row.created_at }));
}
