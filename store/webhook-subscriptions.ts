// Webhook subscriptions. The signing secret is sealed before it reaches SQL and opened only by the
// delivery activity; listings carry neither it nor its ciphertext.
import type { Db, DbClient } from './db.ts';
import { inTransaction } from './db.ts';
import { newId } from '../lib/ids.ts';
import { open, seal } from './secret-box.ts';
import type { MasterKey } from '../lib/master-key.ts';

export type SubscriptionStatus = 'active' | 'disabled';

export interface Subscription {
  id: string;
  userId: string;
  url: string;
  events: string[];
  status: SubscriptionStatus;
  disabledReason: string | null;
  createdAt: Date;
  updatedAt: Date;
}

interface SubscriptionRow {
  id: string;
  user_id: string;
  url: string;
  events: string[];
  status: SubscriptionStatus;
  disabled_reason: string | null;
  created_at: Date;
  updated_at: Date;
}

export interface SealedSecretColumns {
  secret_key_id: string;
  secret_nonce: Buffer;
  secret_ciphertext: Buffer;
  secret_auth_tag: Buffer;
}

/** Columns safe to show; never `SELECT *` into a response. */
const COLUMNS = 'id, user_id, url, events, status, disabled_reason, created_at, updated_at';

/** Binds the ciphertext to its subscription: a secret copied onto another row does not open. */
export const secretContext = (subscriptionId: string) => `webhook/${subscriptionId}`;

function toSubscription(row: SubscriptionRow): Subscription {
  return {
    id: row.id,
    userId: row.user_id,
    url: row.url,
    events: row.events,
    status: row.status,
    disabledReason: row.disabled_reason,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export class SubscriptionLimitError extends Error {
  override name = 'SubscriptionLimitError';
}

/** Inserts a subscription unless the user already has `limit`; the count and insert are atomic per user. */
export async function createSubscription(
  db: Db,
  masterKey: MasterKey,
  input: { userId: string; url: string; events: string[]; secret: string; limit: number },
): Promise<Subscription> {
  return inTransaction(db, async (client) => {
    // Serialises concurrent creations of one user, so two requests cannot both take the last place.
    await client.query('SELECT 1 FROM users WHERE id = $1 FOR UPDATE', [input.userId]);
    const { rows: counted } = await client.query<{ n: number }>('SELECT count(*)::int AS n FROM webhook_subscriptions WHERE user_id = $1', [
      input.userId,
    ]);
    if (counted[0]!.n >= input.limit) throw new SubscriptionLimitError(`You have ${counted[0]!.n} webhooks; the limit is ${input.limit}`);
    const id = newId('whk');
    const sealed = seal(masterKey, input.secret, secretContext(id));
    const { rows } = await client.query<SubscriptionRow>(
      `INSERT INTO webhook_subscriptions (id, user_id, url, events, secret_key_id, secret_nonce, secret_ciphertext, secret_auth_tag)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING ${COLUMNS}`,
      [id, input.userId, input.url, input.events, sealed.keyId, sealed.nonce, sealed.ciphertext, sealed.authTag],
    );
    return toSubscription(rows[0]!);
  });
}

export async function getSubscription(db: Db | DbClient, id: string): Promise<Subscription | undefined> {
  const { rows } = await db.query<SubscriptionRow>(`SELECT ${COLUMNS} FROM webhook_subscriptions WHERE id = $1`, [id]);
  return rows[0] && toSubscription(rows[0]);
}

export async function listSubscriptions(db: Db, userId: string): Promise<Subscription[]> {
  const { rows } = await db.query<SubscriptionRow>(
    `SELECT ${COLUMNS} FROM webhook_subscriptions WHERE user_id = $1 ORDER BY created_at, id`,
    [userId],
  );
  return rows.map(toSubscription);
}

/** Deletes a subscription with its deliveries; a delivery still retrying finds it gone and stops. */
export async function deleteSubscription(db: Db, id: string): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM webhook_subscriptions WHERE id = $1', [id]);
  return rowCount === 1;
}

/** Disables a subscription; its deliveries still waiting for an attempt end `cancelled` at once. */
export async function disableSubscription(db: Db | DbClient, id: string, reason: string): Promise<void> {
  await db.query(
    `UPDATE webhook_subscriptions SET status = 'disabled', disabled_reason = $2, updated_at = now() WHERE id = $1 AND status = 'active'`,
    [id, reason],
  );
  await db.query(
    `UPDATE webhook_deliveries SET status = 'cancelled', updated_at = now() WHERE subscription_id = $1 AND status = 'pending'`,
    [id],
  );
}

/** Opens a subscription's signing secret; for the delivery activity only. */
export function openSubscriptionSecret(keys: readonly MasterKey[], subscriptionId: string, row: SealedSecretColumns): string {
  return open(
    keys,
    { keyId: row.secret_key_id, nonce: row.secret_nonce, ciphertext: row.secret_ciphertext, authTag: row.secret_auth_tag },
    secretContext(subscriptionId),
  );
}
