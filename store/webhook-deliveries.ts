// Webhook deliveries and their attempts: written by the publishing and delivery activities, read by
// GET /webhook/:id/deliveries. Every write is idempotent, because Temporal may run an activity again.
import type { Db, DbClient } from './db.ts';
import { inTransaction } from './db.ts';
import { newId } from '../lib/ids.ts';
import type { SealedSecretColumns, SubscriptionStatus } from './webhook-subscriptions.ts';
import { pushLabel } from '../core/delivery-types.ts';

export type DeliveryStatus = 'pending' | 'delivered' | 'failed' | 'cancelled';

export interface DeliveryAttempt {
  attempt: number;
  startedAt: Date;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
}

export interface Delivery {
  id: string;
  subscriptionId: string;
  type: string;
  status: DeliveryStatus;
  /** The event as sent: `{id, type, createdAt, data}`. */
  payload: unknown;
  createdAt: Date;
  updatedAt: Date;
  attempts: DeliveryAttempt[];
}

interface DeliveryRow {
  id: string;
  subscription_id: string;
  event_type: string;
  body: string;
  status: DeliveryStatus;
  attempts: number;
  created_at: Date;
  updated_at: Date;
}

/**
 * Whether a user has an active subscription naming an event type, as a boolean SQL expression
 * (`user`, `type`: its parameters or subqueries): with none, publishing that event records nothing.
 */
export function subscribedSql(user: string, type: string): string {
  return `EXISTS (SELECT 1 FROM webhook_subscriptions WHERE user_id = ${user} AND status = 'active' AND ${type} = ANY(events))`;
}

/**
 * One delivery per active subscription of the user naming `type`, in one transaction. Runs again
 * with the same `eventKey` find the deliveries made before instead of adding more.
 *
 * Every turn publishes an event, and most users subscribe to none: one query first reads both the
 * subscriptions and the deliveries already made for the key. None is made for an eval case's session. With no subscription there is nothing
 * to insert, and what it read is what the transaction would have returned (one round trip, not four).
 */
export async function createDeliveries(
  db: Db,
  input: { userId: string; type: string; eventKey: string; data: unknown },
): Promise<Array<{ id: string; subscriptionId: string }>> {
  // An eval case's session belongs to its run, which tells its end with eval.completed: its own events (a
  // turn's end, a question answered from the recording) would reach automations made for users' sessions.
  const sessionId = (input.data as { sessionId?: unknown } | null)?.sessionId;
  const { rows: found } = await db.query<{ subscribed: boolean; id: string | null; subscription_id: string | null }>(
    `SELECT ${subscribedSql('$1', '$2')} AND NOT EXISTS (SELECT 1 FROM eval_sessions WHERE session_id = $4) AS subscribed,
            d.id, d.subscription_id
       FROM (SELECT 1) AS one
       LEFT JOIN (webhook_deliveries d JOIN webhook_subscriptions s ON s.id = d.subscription_id AND s.user_id = $1)
         ON d.event_key = $3
      ORDER BY d.created_at, d.id`,
    [input.userId, input.type, input.eventKey, typeof sessionId === 'string' ? sessionId : null],
  );
  if (!found[0]?.subscribed) {
    return found.filter((row) => row.id !== null).map((row) => ({ id: row.id!, subscriptionId: row.subscription_id! }));
  }
  return inTransaction(db, (client) => insertDeliveries(client, input));
}

/**
 * The deliveries of one event inside the caller's transaction (a change and its event commit together):
 * one per active subscription naming `type`, none again for an `eventKey` recorded before.
 */
export async function insertDeliveries(
  client: DbClient,
  input: { userId: string; type: string; eventKey: string; data: unknown },
): Promise<Array<{ id: string; subscriptionId: string }>> {
  const { rows: subscriptions } = await client.query<{ id: string }>(
    `SELECT id FROM webhook_subscriptions WHERE user_id = $1 AND status = 'active' AND $2 = ANY(events) ORDER BY created_at, id`,
    [input.userId, input.type],
  );
  const createdAt = new Date().toISOString();
  for (const subscription of subscriptions) {
    const id = newId('dlv');
    const body = JSON.stringify({ id, type: input.type, createdAt, data: input.data });
    await client.query(
      `INSERT INTO webhook_deliveries (id, subscription_id, event_type, event_key, body) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (subscription_id, event_key) DO NOTHING`,
      [id, subscription.id, input.type, input.eventKey, body],
    );
  }
  const { rows } = await client.query<{ id: string; subscription_id: string }>(
    `SELECT d.id, d.subscription_id FROM webhook_deliveries d JOIN webhook_subscriptions s ON s.id = d.subscription_id
      WHERE s.user_id = $1 AND d.event_key = $2 ORDER BY d.created_at, d.id`,
    [input.userId, input.eventKey],
  );
  return rows.map((row) => ({ id: row.id, subscriptionId: row.subscription_id }));
}

export interface DeliveryTarget extends SealedSecretColumns {
  id: string;
  subscription_id: string;
  body: string;
  status: DeliveryStatus;
  url: string;
  subscription_status: SubscriptionStatus;
}

/** What one attempt needs: the delivery, where it goes and the sealed secret. Undefined once its subscription is deleted. */
export async function deliveryTarget(db: Db, deliveryId: string): Promise<DeliveryTarget | undefined> {
  const { rows } = await db.query<DeliveryTarget>(
    `SELECT d.id, d.subscription_id, d.body, d.status, s.url, s.status AS subscription_status,
            s.secret_key_id, s.secret_nonce, s.secret_ciphertext, s.secret_auth_tag
       FROM webhook_deliveries d JOIN webhook_subscriptions s ON s.id = d.subscription_id
      WHERE d.id = $1`,
    [deliveryId],
  );
  return rows[0];
}

/** Records an attempt and, unless it is `pending`, ends the delivery (a finished delivery stays as it is). */
export async function recordAttempt(
  db: Db,
  input: { deliveryId: string; attempt: DeliveryAttempt; status: DeliveryStatus },
): Promise<void> {
  const { attempt } = input;
  await inTransaction(db, async (client) => {
    await client.query(
      `INSERT INTO webhook_delivery_attempts (delivery_id, attempt, started_at, status_code, error, duration_ms)
       VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (delivery_id, attempt) DO NOTHING`,
      [input.deliveryId, attempt.attempt, attempt.startedAt, attempt.statusCode, attempt.error, attempt.durationMs],
    );
    await client.query(
      `UPDATE webhook_deliveries SET attempts = GREATEST(attempts, $2), status = $3, updated_at = now() WHERE id = $1 AND status = 'pending'`,
      [input.deliveryId, attempt.attempt, input.status],
    );
  });
}

export async function finishDelivery(db: Db | DbClient, deliveryId: string, status: Exclude<DeliveryStatus, 'pending'>): Promise<void> {
  await db.query(`UPDATE webhook_deliveries SET status = $2, updated_at = now() WHERE id = $1 AND status = 'pending'`, [
    deliveryId,
    status,
  ]);
}

/** A subscription's deliveries, newest first, each with its attempts; `before` is the id of the last one of the previous page. */
export async function listDeliveries(db: Db, subscriptionId: string, options: { limit: number; before?: string }): Promise<Delivery[]> {
  const { rows } = await db.query<DeliveryRow>(
    `SELECT id, subscription_id, event_type, body, status, attempts, created_at, updated_at FROM webhook_deliveries
      WHERE subscription_id = $1
        AND ($2::text IS NULL OR (created_at, id) < (SELECT created_at, id FROM webhook_deliveries WHERE id = $2 AND subscription_id = $1))
      ORDER BY created_at DESC, id DESC LIMIT $3`,
    [subscriptionId, options.before ?? null, options.limit],
  );
  const { rows: attempts } = await db.query<{
    delivery_id: string;
    attempt: number;
    started_at: Date;
    status_code: number | null;
    error: string | null;
    duration_ms: number;
  }>('SELECT * FROM webhook_delivery_attempts WHERE delivery_id = ANY($1) ORDER BY attempt', [rows.map((row) => row.id)]);
  return rows.map((row) => ({
    id: row.id,
    subscriptionId: row.subscription_id,
    type: row.event_type,
    status: row.status,
    payload: JSON.parse(row.body) as unknown,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    attempts: attempts
      .filter((attempt) => attempt.delivery_id === row.id)
      .map((attempt) => ({
        attempt: attempt.attempt,
        startedAt: attempt.started_at,
        statusCode: attempt.status_code,
        error: attempt.error,
        durationMs: attempt.duration_ms,
      })),
  }));
}

/**
 * Deliveries recorded more than `olderThanMs` ago whose workflow is not known to run (never marked
 * started, never attempted): the process that recorded them died before starting them. Oldest first;
 * a day old at most, so an event is late, never stale; of active subscriptions only.
 */
export async function unstartedDeliveries(
  db: Db,
  olderThanMs: number,
  limit: number,
): Promise<Array<{ deliveryId: string; subscriptionId: string; type: string; userId: string }>> {
  // A delivery goes to an active subscription, or to an A2A push config (store/a2a-push.ts).
  const { rows } = await db.query<{
    id: string;
    subscription_id: string | null;
    event_type: string;
    user_id: string;
    push_task_id: string | null;
    push_config_id: string | null;
  }>(
    `SELECT d.id, d.subscription_id, d.event_type, coalesce(s.user_id, p.user_id) AS user_id, d.push_task_id, d.push_config_id
       FROM webhook_deliveries d
       LEFT JOIN webhook_subscriptions s ON s.id = d.subscription_id AND s.status = 'active'
       LEFT JOIN a2a_push_configs p ON p.task_id = d.push_task_id AND p.id = d.push_config_id
      WHERE d.status = 'pending' AND d.attempts = 0 AND d.started_at IS NULL AND (s.id IS NOT NULL OR p.id IS NOT NULL)
        AND d.created_at < now() - make_interval(secs => $1::double precision / 1000) AND d.created_at > now() - interval '1 day'
      ORDER BY d.created_at LIMIT $2`,
    [olderThanMs, limit],
  );
  return rows.map((row) => ({
    deliveryId: row.id,
    subscriptionId: row.subscription_id ?? pushLabel(row.push_task_id!, row.push_config_id!),
    type: row.event_type,
    userId: row.user_id,
  }));
}

/** Their workflows run (started now, or found started): the housekeeping pass leaves them alone. */
export async function markDeliveriesStarted(db: Db, deliveryIds: string[]): Promise<void> {
  if (deliveryIds.length > 0)
    await db.query('UPDATE webhook_deliveries SET started_at = now() WHERE id = ANY($1) AND started_at IS NULL', [deliveryIds]);
}
