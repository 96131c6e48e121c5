// Activities that check the service's own parts. The system check workflow runs them so an operator
// (and the smoke test) can prove that a worker polls, reaches PostgreSQL, and reports back.
import type { Db } from '../store/db.ts';

export interface DatabaseCheck {
  serverVersion: string;
  migrationsApplied: number;
}

export function systemActivities(deps: { db: Db }) {
  return {
    async checkDatabase(): Promise<DatabaseCheck> {
      const version = await deps.db.query<{ server_version: string }>('SHOW server_version');
      const applied = await deps.db.query<{ n: number }>('SELECT count(*)::int AS n FROM schema_migrations');
      return { serverVersion: version.rows[0]!.server_version, migrationsApplied: applied.rows[0]!.n };
    },
  };
}
