// Re-sealing after a master key rotation (`npm run reseal`): every secret, webhook signing secret and A2A push credential
// not sealed under the current master key is opened under the key that sealed it and sealed again
// under the current one, one batch per transaction, so the previous key can then be dropped. Rows
// already under the current key are left as they are: a second run, or a run interrupted and
// started again, only does what is left.
import type { Db } from './db.ts';
import { inTransaction } from './db.ts';
import { open, seal } from './secret-box.ts';
import { secretContext } from './secrets.ts';
import { secretContext as webhookSecretContext } from './webhook-subscriptions.ts';
import { pushSecretContext } from './a2a-push.ts';
import type { MasterKey } from '../lib/master-key.ts';

/** Where one kind of sealed value lives, and what each was bound to when sealed. */
interface SealedTable {
  /** How counts and errors name these values. */
  label: string;
  table: string;
  /** The primary key's columns: they name a row in errors and order the batches. */
  primaryKey: readonly string[];
  columns: { keyId: string; nonce: string; ciphertext: string; authTag: string };
  /** What a value was bound to when sealed, from its row's primary key (in `primaryKey`'s order). */
  context(rowKey: readonly string[]): string;
}

const SEALED_TABLES: readonly SealedTable[] = [
  {
    label: 'secrets',
    table: 'secrets',
    primaryKey: ['user_id', 'key'],
    columns: { keyId: 'key_id', nonce: 'nonce', ciphertext: 'ciphertext', authTag: 'auth_tag' },
    context: ([userId, key]) => secretContext(userId!, key!),
  },
  {
    label: 'webhook secrets',
    table: 'webhook_subscriptions',
    primaryKey: ['id'],
    columns: { keyId: 'secret_key_id', nonce: 'secret_nonce', ciphertext: 'secret_ciphertext', authTag: 'secret_auth_tag' },
    context: ([id]) => webhookSecretContext(id!),
  },
  {
    label: 'A2A push credentials',
    table: 'a2a_push_configs',
    primaryKey: ['task_id', 'id'],
    columns: { keyId: 'secret_key_id', nonce: 'secret_nonce', ciphertext: 'secret_ciphertext', authTag: 'secret_auth_tag' },
    context: ([taskId, id]) => pushSecretContext(taskId!, id!),
  },
];

export interface ResealCount {
  label: string;
  /** Sealed again under the current key by this run. */
  resealed: number;
  /** Already under the current key before this run. */
  alreadyCurrent: number;
}

/** Rows sealed under a master key that is not configured: nothing can open them, so nothing is resealed. */
export class UnconfiguredMasterKeyError extends Error {
  override name = 'UnconfiguredMasterKeyError';
}

/** A sealed value that does not open under the key its row names (altered, or moved from another row). */
export class UnopenableValueError extends Error {
  override name = 'UnopenableValueError';
}

interface SealedRow {
  row_key: string[];
  key_id: string;
  nonce: Buffer;
  ciphertext: Buffer;
  auth_tag: Buffer;
}

/**
 * Seals every value of every table under `keys[0]` (the current master key), opening each under the
 * key of `keys` that sealed it. Refuses before changing anything when a row's key is not among `keys`.
 */
export async function resealAll(db: Db, keys: readonly MasterKey[], batchSize = 100): Promise<ResealCount[]> {
  const current = keys[0]!;
  const known = new Set(keys.map((key) => key.id));
  const tallies = await Promise.all(SEALED_TABLES.map((table) => keyTally(db, table)));
  const missing = tallies.flatMap((tally, index) =>
    [...tally].filter(([keyId]) => !known.has(keyId)).map(([keyId, rows]) => `${SEALED_TABLES[index]!.label}: ${rows} under ${keyId}`),
  );
  if (missing.length > 0) {
    throw new UnconfiguredMasterKeyError(
      `Some values are sealed under a master key that is not configured (${missing.join('; ')}). Add that key to ` +
        'SERVICE_MASTER_KEY_PREVIOUS and run again; nothing was resealed.',
    );
  }
  const counts: ResealCount[] = [];
  for (const [index, table] of SEALED_TABLES.entries()) {
    let resealed = 0;
    for (;;) {
      const done = await resealBatch(db, table, keys, batchSize);
      if (done === 0) break;
      resealed += done;
    }
    counts.push({ label: table.label, resealed, alreadyCurrent: tallies[index]!.get(current.id) ?? 0 });
  }
  return counts;
}

/** How many rows of `table` each master key id sealed. */
async function keyTally(db: Db, table: SealedTable): Promise<Map<string, number>> {
  const { rows } = await db.query<{ key_id: string; rows: number }>(
    `SELECT ${table.columns.keyId} AS key_id, count(*)::int AS rows FROM ${table.table} GROUP BY 1`,
  );
  return new Map(rows.map((row) => [row.key_id, row.rows]));
}

/** Reseals up to `batchSize` rows not under the current key, in one transaction; how many it did. */
async function resealBatch(db: Db, table: SealedTable, keys: readonly MasterKey[], batchSize: number): Promise<number> {
  const current = keys[0]!;
  const { keyId, nonce, ciphertext, authTag } = table.columns;
  const primaryKey = table.primaryKey.join(', ');
  return inTransaction(db, async (client) => {
    // Locked until the transaction ends, so a value replaced meanwhile (a secret set again) is not overwritten.
    const { rows } = await client.query<SealedRow>(
      `SELECT ARRAY[${primaryKey}]::text[] AS row_key, ${keyId} AS key_id, ${nonce} AS nonce, ${ciphertext} AS ciphertext,
              ${authTag} AS auth_tag
       FROM ${table.table} WHERE ${keyId} <> $1 ORDER BY ${primaryKey} LIMIT $2 FOR UPDATE`,
      [current.id, batchSize],
    );
    for (const row of rows) {
      const context = table.context(row.row_key);
      let value: string;
      try {
        value = open(keys, { keyId: row.key_id, nonce: row.nonce, ciphertext: row.ciphertext, authTag: row.auth_tag }, context);
      } catch (error) {
        // Named by its row, never by its value.
        const name = table.primaryKey.map((column, index) => `${column} ${row.row_key[index]}`).join(', ');
        throw new UnopenableValueError(`Of the ${table.label}, ${name} does not open: ${(error as Error).message}`, { cause: error });
      }
      const sealed = seal(current, value, context);
      const where = table.primaryKey.map((column, index) => `${column} = $${index + 5}`).join(' AND ');
      await client.query(`UPDATE ${table.table} SET ${keyId} = $1, ${nonce} = $2, ${ciphertext} = $3, ${authTag} = $4 WHERE ${where}`, [
        sealed.keyId,
        sealed.nonce,
        sealed.ciphertext,
        sealed.authTag,
        ...row.row_key,
      ]);
    }
    return rows.length;
  });
}
