// API keys. The key itself is shown once, at creation; only its SHA-256 hash is stored. A key is
// `sk_` + 32 random base32 characters (160 bits), so hashing without a salt is safe: there is no
// dictionary to attack. 35 characters in all, so a generated key is always a valid ADMIN_API_KEY
// (at least 32); keys made before, with 26 characters, still authenticate (only the hash is compared).
import type { Db, DbClient } from './db.ts';
import { newId, randomToken } from '../lib/ids.ts';
import { sha256Hex } from '../lib/crypto.ts';
import type { Scope } from '../contract/scopes.ts';

export interface ApiKey {
  id: string;
  userId: string;
  name: string;
  prefix: string;
  scopes: Scope[];
  createdAt: Date;
  lastUsedAt: Date | null;
}

export interface Principal {
  keyId: string;
  /** When the key was last recorded as used (at most once a minute; see touchKey). */
  lastUsedAt: Date | null;
  userId: string;
  userName: string;
  isAdmin: boolean;
  scopes: Scope[];
  /** An OAuth grant's: the path of the one MCP URL it was issued for (null: any route its scopes allow). */
  resource: string | null;
}

interface KeyRow {
  id: string;
  user_id: string;
  name: string;
  prefix: string;
  scopes: Scope[];
  created_at: Date;
  last_used_at: Date | null;
}

const KEY_PREFIX = 'sk_';
/** Characters of the key shown in listings: enough to tell keys apart, far too few to guess. */
const DISPLAY_CHARS = KEY_PREFIX.length + 6;

function toApiKey(row: KeyRow): ApiKey {
  return {
    id: row.id,
    userId: row.user_id,
    name: row.name,
    prefix: row.prefix,
    scopes: row.scopes,
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
  };
}

/** The shown part of a key: its prefix and a few characters after it. */
export function displayPrefix(key: string): string {
  return key.slice(0, DISPLAY_CHARS);
}

export function generateKey(): string {
  return KEY_PREFIX + randomToken(160);
}

export async function insertKey(
  db: Db | DbClient,
  input: { userId: string; name: string; scopes: readonly Scope[]; key?: string; source?: 'user' | 'env' },
): Promise<{ apiKey: ApiKey; key: string }> {
  const key = input.key ?? generateKey();
  const { rows } = await db.query<KeyRow>(
    `INSERT INTO api_keys (id, user_id, name, prefix, key_hash, scopes, source)
     VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING *`,
    [newId('key'), input.userId, input.name, key.slice(0, DISPLAY_CHARS), sha256Hex(key), input.scopes, input.source ?? 'user'],
  );
  return { apiKey: toApiKey(rows[0]!), key };
}

/**
 * The keys a user holds, counted after locking the user's row (in `client`'s transaction), so two
 * requests adding a key at once cannot both pass a limit on the count.
 */
export async function countKeysLocked(client: DbClient, userId: string): Promise<number> {
  await client.query('SELECT 1 FROM users WHERE id = $1 FOR UPDATE', [userId]);
  return countKeys(client, userId);
}

export async function countKeys(db: Db | DbClient, userId: string): Promise<number> {
  const { rows } = await db.query<{ count: number }>('SELECT count(*)::int AS count FROM api_keys WHERE user_id = $1', [userId]);
  return rows[0]!.count;
}

export async function listKeys(db: Db, userId: string): Promise<ApiKey[]> {
  const { rows } = await db.query<KeyRow>('SELECT * FROM api_keys WHERE user_id = $1 ORDER BY created_at, id', [userId]);
  return rows.map(toApiKey);
}

/** Deletes one of the user's keys; false when the user has no such key. */
export async function deleteKey(db: Db, userId: string, keyId: string): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM api_keys WHERE id = $1 AND user_id = $2', [keyId, userId]);
  return rowCount === 1;
}

export async function authenticate(db: Db, key: string): Promise<Principal | undefined> {
  const { rows } = await db.query<{
    id: string;
    user_id: string;
    name: string;
    is_admin: boolean;
    scopes: Scope[];
    last_used_at: Date | null;
    resource: string | null;
  }>(
    // An OAuth grant's access token expires (a refresh gives the next one); a key does not.
    `SELECT k.id, k.user_id, u.name, u.is_admin, k.scopes, k.last_used_at, k.resource
       FROM api_keys k JOIN users u ON u.id = k.user_id
      WHERE k.key_hash = $1 AND (k.expires_at IS NULL OR k.expires_at > now())`,
    [sha256Hex(key)],
  );
  const row = rows[0];
  if (!row) return undefined;
  return {
    keyId: row.id,
    userId: row.user_id,
    userName: row.name,
    isAdmin: row.is_admin,
    scopes: row.scopes,
    lastUsedAt: row.last_used_at,
    resource: row.resource,
  };
}

/** Records use at most once a minute per key, so a busy key does not write on every request. */
export async function touchKey(db: Db, keyId: string): Promise<void> {
  await db.query(
    `UPDATE api_keys SET last_used_at = now()
      WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')`,
    [keyId],
  );
}

/** Makes `key` (from ADMIN_API_KEY) a key of `userId`, revoking any earlier environment key. */
export async function replaceEnvKey(db: DbClient, userId: string, key: string, scopes: readonly Scope[]): Promise<void> {
  await db.query(`DELETE FROM api_keys WHERE source = 'env' AND key_hash <> $1`, [sha256Hex(key)]);
  const { rowCount } = await db.query('SELECT 1 FROM api_keys WHERE key_hash = $1', [sha256Hex(key)]);
  if (!rowCount) await insertKey(db, { userId, name: 'ADMIN_API_KEY', scopes, key, source: 'env' });
}
