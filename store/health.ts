// What the health route and the system check ask of PostgreSQL itself.
import type { Db } from './db.ts';

export async function pingDatabase(db: Db): Promise<void> {
  await db.query('SELECT 1');
}

export interface DatabaseCheck {
  serverVersion: string;
  migrationsApplied: number;
}

export async function checkDatabase(db: Db): Promise<DatabaseCheck> {
  const version = await db.query<{ server_version: string }>('SHOW server_version');
  const applied = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM schema_migrations');
  return { serverVersion: version.rows[0]!.server_version, migrationsApplied: applied.rows[0]!.n };
}
