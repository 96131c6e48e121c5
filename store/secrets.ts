// A user's secrets. Values are sealed before they reach SQL and opened only by activities that
// need them; listings return names and dates only.
import type { Db } from './db.ts';
import { open, seal } from './secret-box.ts';
import type { MasterKey } from '../lib/master-key.ts';
import { secretReferences, substituteSecrets, type ResolvedConfig } from '../lib/channel-config.ts';
import type { UserChannel } from '../contract/bundle.ts';

export interface SecretInfo {
  key: string;
  createdAt: Date;
  updatedAt: Date;
}

interface SecretRow {
  key: string;
  key_id: string;
  nonce: Buffer;
  ciphertext: Buffer;
  auth_tag: Buffer;
  created_at: Date;
  updated_at: Date;
}

/** Binds the ciphertext to its owner and name: a value copied onto another row does not open. */
export const secretContext = (userId: string, key: string) => `${userId}/${key}`;

function info(row: SecretRow): SecretInfo {
  return { key: row.key, createdAt: row.created_at, updatedAt: row.updated_at };
}

/** Stores or replaces a secret; `created` tells which. */
export async function putSecret(
  db: Db,
  masterKey: MasterKey,
  userId: string,
  key: string,
  value: string,
): Promise<SecretInfo & { created: boolean }> {
  const sealed = seal(masterKey, value, secretContext(userId, key));
  const { rows } = await db.query<SecretRow & { inserted: boolean }>(
    `INSERT INTO secrets (user_id, key, key_id, nonce, ciphertext, auth_tag) VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (user_id, key) DO UPDATE
       SET key_id = EXCLUDED.key_id, nonce = EXCLUDED.nonce, ciphertext = EXCLUDED.ciphertext,
           auth_tag = EXCLUDED.auth_tag, updated_at = now()
     RETURNING key, created_at, updated_at, (xmax = 0) AS inserted`,
    [userId, key, sealed.keyId, sealed.nonce, sealed.ciphertext, sealed.authTag],
  );
  const row = rows[0]!;
  return { ...info(row), created: row.inserted };
}

export async function listSecrets(db: Db, userId: string): Promise<SecretInfo[]> {
  const { rows } = await db.query<SecretRow>('SELECT key, created_at, updated_at FROM secrets WHERE user_id = $1 ORDER BY key', [userId]);
  return rows.map(info);
}

export async function secretKeys(db: Db, userId: string): Promise<Set<string>> {
  const { rows } = await db.query<{ key: string }>('SELECT key FROM secrets WHERE user_id = $1', [userId]);
  return new Set(rows.map((row) => row.key));
}

export async function deleteSecret(db: Db, userId: string, key: string): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM secrets WHERE user_id = $1 AND key = $2', [userId, key]);
  return rowCount === 1;
}

/** Opens the named secrets of a user; for activities only. Missing names are absent from the map. */
export async function readSecrets(
  db: Db,
  keys: readonly MasterKey[],
  userId: string,
  names: readonly string[],
): Promise<Map<string, string>> {
  // Most model steps are granted no provider secret: no need to ask.
  if (names.length === 0) return new Map();
  const { rows } = await db.query<SecretRow>('SELECT * FROM secrets WHERE user_id = $1 AND key = ANY($2)', [userId, names]);
  return new Map(
    rows.map((row) => [
      row.key,
      open(
        keys,
        { keyId: row.key_id, nonce: row.nonce, ciphertext: row.ciphertext, authTag: row.auth_tag },
        secretContext(userId, row.key),
      ),
    ]),
  );
}

/**
 * A channel's config with its `{{secrets.KEY}}` references replaced by the user's secret values. Only
 * secrets the agent is granted are read, whatever the config says: deploy checks the same.
 */
export async function resolveChannelConfig(
  deps: { db: Db; masterKeys: readonly MasterKey[] },
  input: { userId: string; grants: readonly string[]; channel: UserChannel },
): Promise<ResolvedConfig> {
  const names = secretReferences(input.channel.config).filter((name) => input.grants.includes(name));
  const secrets = names.length > 0 ? await readSecrets(deps.db, deps.masterKeys, input.userId, names) : new Map<string, string>();
  return substituteSecrets(input.channel.config, secrets);
}
