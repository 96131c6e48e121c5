// A user's secrets. Values are sealed before they reach SQL and opened only by activities that
// need them; listings return names and dates only.
import type { Db } from './db.ts';
import { open, seal } from './secret-box.ts';
import type { MasterKey } from '../lib/master-key.ts';
import { secretReferences, substituteSecrets, type ResolvedConfig } from '../lib/channel-config.ts';
import type { UserChannel } from '../contract/bundle.ts';

export interface SecretInfo {
  key: string;
  /** Where the secret may be sent in a tool's request headers (lib/secret-hosts.ts). */
  hosts: string[];
  createdAt: Date;
  updatedAt: Date;
}

/** A secret opened for use: its value and the hosts it may be sent to. */
export interface OpenedSecret {
  value: string;
  hosts: string[];
}

interface SecretRow {
  key: string;
  key_id: string;
  nonce: Buffer;
  ciphertext: Buffer;
  auth_tag: Buffer;
  hosts: string[];
  created_at: Date;
  updated_at: Date;
}

/** Binds the ciphertext to its owner and name: a value copied onto another row does not open. */
export const secretContext = (userId: string, key: string) => `${userId}/${key}`;

function info(row: SecretRow): SecretInfo {
  return { key: row.key, hosts: row.hosts, createdAt: row.created_at, updatedAt: row.updated_at };
}

/**
 * Stores or replaces a secret; `created` tells which. `hosts` replaces the stored list when given;
 * left out, a new secret gets none and a replaced one keeps its own (a rotated value keeps working).
 */
export async function putSecret(
  db: Db,
  masterKey: MasterKey,
  userId: string,
  key: string,
  value: string,
  hosts?: readonly string[],
): Promise<SecretInfo & { created: boolean }> {
  const sealed = seal(masterKey, value, secretContext(userId, key));
  const { rows } = await db.query<SecretRow & { inserted: boolean }>(
    `INSERT INTO secrets (user_id, key, key_id, nonce, ciphertext, auth_tag, hosts)
     VALUES ($1, $2, $3, $4, $5, $6, coalesce($7::text[], '{}'))
     ON CONFLICT (user_id, key) DO UPDATE
       SET key_id = EXCLUDED.key_id, nonce = EXCLUDED.nonce, ciphertext = EXCLUDED.ciphertext,
           auth_tag = EXCLUDED.auth_tag, hosts = coalesce($7::text[], secrets.hosts), updated_at = now()
     RETURNING key, hosts, created_at, updated_at, (xmax = 0) AS inserted`,
    [userId, key, sealed.keyId, sealed.nonce, sealed.ciphertext, sealed.authTag, hosts ?? null],
  );
  const row = rows[0]!;
  return { ...info(row), created: row.inserted };
}

export async function listSecrets(db: Db, userId: string): Promise<SecretInfo[]> {
  const { rows } = await db.query<SecretRow>('SELECT key, hosts, created_at, updated_at FROM secrets WHERE user_id = $1 ORDER BY key', [
    userId,
  ]);
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
  const opened = await openSecrets(db, keys, userId, names);
  return new Map([...opened].map(([name, secret]) => [name, secret.value]));
}

/** The named secrets of a user with the hosts each may be sent to; for activities only. */
export async function openSecrets(
  db: Db,
  keys: readonly MasterKey[],
  userId: string,
  names: readonly string[],
): Promise<Map<string, OpenedSecret>> {
  // Most model steps are granted no provider secret: no need to ask.
  if (names.length === 0) return new Map();
  const { rows } = await db.query<SecretRow>('SELECT * FROM secrets WHERE user_id = $1 AND key = ANY($2)', [userId, names]);
  return new Map(
    rows.map((row) => [
      row.key,
      {
        value: open(
          keys,
          { keyId: row.key_id, nonce: row.nonce, ciphertext: row.ciphertext, authTag: row.auth_tag },
          secretContext(userId, row.key),
        ),
        hosts: row.hosts,
      },
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
