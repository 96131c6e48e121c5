import type { Db, DbClient } from './db.ts';
import { newId } from '../lib/ids.ts';

export interface User {
  id: string;
  name: string;
  isAdmin: boolean;
  createdAt: Date;
}

interface UserRow {
  id: string;
  name: string;
  is_admin: boolean;
  created_at: Date;
}

function toUser(row: UserRow): User {
  return { id: row.id, name: row.name, isAdmin: row.is_admin, createdAt: row.created_at };
}

export async function createUser(db: Db | DbClient, input: { name: string; isAdmin?: boolean }): Promise<User> {
  const { rows } = await db.query<UserRow>('INSERT INTO users (id, name, is_admin) VALUES ($1, $2, $3) RETURNING *', [
    newId('usr'),
    input.name,
    input.isAdmin ?? false,
  ]);
  return toUser(rows[0]!);
}

export async function findFirstAdmin(db: Db | DbClient): Promise<User | undefined> {
  const { rows } = await db.query<UserRow>('SELECT * FROM users WHERE is_admin ORDER BY created_at LIMIT 1');
  return rows[0] && toUser(rows[0]);
}

export async function countUsers(db: Db | DbClient): Promise<number> {
  const { rows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM users');
  return rows[0]!.n;
}
