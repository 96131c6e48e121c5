// PostgreSQL's clock, for times PostgreSQL wrote: an approval's answer time is its now(), so whether a time
// counted from it has passed is asked of the same clock, not of a worker's, which may be off by seconds.
import type { Db } from './db.ts';

/** Whether `at` (an ISO time) has passed by PostgreSQL's clock. */
export async function hasPassed(db: Db, at: string): Promise<boolean> {
  const { rows } = await db.query<{ passed: boolean }>({
    name: 'db-clock-has-passed',
    text: 'SELECT now() > $1::timestamptz AS passed',
    values: [at],
  });
  return rows[0]!.passed;
}
