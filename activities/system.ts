// Activities that check the service's own parts. The system check workflow runs them so an operator
// (and the smoke test) can prove that a worker polls, reaches PostgreSQL, and reports back.
import type { Db } from '../store/db.ts';
import { checkDatabase } from '../store/health.ts';

export function systemActivities(deps: { db: Db }) {
  return {
    checkDatabase: () => checkDatabase(deps.db),
  };
}
