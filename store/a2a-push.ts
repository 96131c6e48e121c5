// A2A push notification configs (docs/a2a.md) and the notifications they get: a client names a URL of its
// own for a task (a turn), and each change of the task's state there becomes a delivery, sent by the
// webhook delivery workflow with its retries (store/webhook-deliveries.ts: a delivery goes to a
// subscription or to a push config). The token and credentials the client gave are sealed at rest.
import type { Db, DbClient } from './db.ts';
import { inTransaction } from './db.ts';
import { newId } from '../lib/ids.ts';
import { open, seal } from './secret-box.ts';
import type { MasterKey } from '../lib/master-key.ts';
import type { SealedSecretColumns } from './webhook-subscriptions.ts';
import { TERMINAL_TURN_EVENTS } from '../contract/events.ts';
import { pushLabel } from '../core/delivery-types.ts';

/** Configs one task may have, and one user across their tasks. */
export const PUSH_LIMITS = { perTask: 10, perUser: 1_000 } as const;

export interface PushConfig {
  taskId: string;
  id: string;
  sessionId: string;
  url: string;
  token: string;
  /** `Authorization: <scheme> <credentials>` on each notification, when given. */
  authentication?: { scheme: string; credentials: string };
}

/** The state a notification tells: as A2A names it (TaskState's JSON name). */
export type PushedState =
  'TASK_STATE_COMPLETED' | 'TASK_STATE_FAILED' | 'TASK_STATE_CANCELED' | 'TASK_STATE_INPUT_REQUIRED' | 'TASK_STATE_AUTH_REQUIRED';

interface ConfigRow extends SealedSecretColumns {
  task_id: string;
  id: string;
  session_id: string;
  url: string;
  auth_scheme: string | null;
}

/** What a sealed value was bound to: a copy moved to another row does not open. */
export function pushSecretContext(taskId: string, id: string): string {
  return `a2a-push:${taskId}:${id}`;
}

function configOf(keys: readonly MasterKey[], row: ConfigRow): PushConfig {
  const sealed = { keyId: row.secret_key_id, nonce: row.secret_nonce, ciphertext: row.secret_ciphertext, authTag: row.secret_auth_tag };
  const secrets = JSON.parse(open(keys, sealed, pushSecretContext(row.task_id, row.id))) as { token: string; credentials: string };
  return {
    taskId: row.task_id,
    id: row.id,
    sessionId: row.session_id,
    url: row.url,
    token: secrets.token,
    ...(row.auth_scheme !== null ? { authentication: { scheme: row.auth_scheme, credentials: secrets.credentials } } : {}),
  };
}

export class PushLimitError extends Error {
  override name = 'PushLimitError';
}

/**
 * Keeps a config (one of the same id is replaced) and, when the task has ended already, its notification
 * of that end: under the session's lock, as a task's end is written, so a config made while the task ends
 * is told the end either way (here, or by the end's own notifications) and never twice (one event key).
 */
export async function savePushConfig(
  db: Db,
  masterKey: MasterKey,
  config: PushConfig & { userId: string; turnId: string },
): Promise<{ config: PushConfig; ended: RecordedPush[] }> {
  return inTransaction(db, async (client) => {
    await client.query('SELECT 1 FROM sessions WHERE id = $1 FOR UPDATE', [config.sessionId]);
    const { rows: counts } = await client.query<{ task: number; user: number; same: boolean }>(
      `SELECT count(*) FILTER (WHERE task_id = $2)::int AS task, count(*)::int AS user,
              bool_or(task_id = $2 AND id = $3) AS same
         FROM a2a_push_configs WHERE user_id = $1`,
      [config.userId, config.taskId, config.id],
    );
    const { task, user, same } = counts[0]!;
    if (!same && task >= PUSH_LIMITS.perTask) throw new PushLimitError(`A task has at most ${PUSH_LIMITS.perTask} push configs`);
    if (!same && user >= PUSH_LIMITS.perUser) throw new PushLimitError(`A user has at most ${PUSH_LIMITS.perUser} push configs`);
    const secrets = JSON.stringify({ token: config.token, credentials: config.authentication?.credentials ?? '' });
    const sealed = seal(masterKey, secrets, pushSecretContext(config.taskId, config.id));
    await client.query(
      `INSERT INTO a2a_push_configs (task_id, id, session_id, user_id, url, auth_scheme, secret_key_id, secret_nonce, secret_ciphertext, secret_auth_tag)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
       ON CONFLICT (task_id, id) DO UPDATE SET url = EXCLUDED.url, auth_scheme = EXCLUDED.auth_scheme,
         secret_key_id = EXCLUDED.secret_key_id, secret_nonce = EXCLUDED.secret_nonce,
         secret_ciphertext = EXCLUDED.secret_ciphertext, secret_auth_tag = EXCLUDED.secret_auth_tag`,
      [
        config.taskId,
        config.id,
        config.sessionId,
        config.userId,
        config.url,
        config.authentication?.scheme ?? null,
        sealed.keyId,
        sealed.nonce,
        sealed.ciphertext,
        sealed.authTag,
      ],
    );
    const { rows: ends } = await client.query<{ type: string; error: string | null }>(
      `SELECT type, data->>'error' AS error FROM events
        WHERE session_id = $1 AND type = ANY($2) AND data->>'turnId' = $3 ORDER BY seq DESC LIMIT 1`,
      [config.sessionId, TERMINAL_TURN_EVENTS, config.turnId],
    );
    const { taskId, sessionId, url, token, authentication } = config;
    const saved = { taskId, id: config.id, sessionId, url, token, ...(authentication ? { authentication } : {}) };
    if (!ends[0]) return { config: saved, ended: [] };
    const state = endState(ends[0].type);
    const ended = await insertPushDeliveries(client, {
      sessionId,
      taskId,
      turnId: config.turnId,
      state,
      ...(ends[0].error ? { text: ends[0].error } : {}),
      onlyConfig: config.id,
    });
    return { config: saved, ended };
  });
}

/** The state a turn's terminal event tells. */
export function endState(type: string): PushedState {
  return type === 'turn.completed' ? 'TASK_STATE_COMPLETED' : type === 'turn.failed' ? 'TASK_STATE_FAILED' : 'TASK_STATE_CANCELED';
}

/** Whether a task has a push config: a change with more to read for its notification reads it only then. */
export async function hasPushConfigs(db: Db, sessionId: string, taskId: string): Promise<boolean> {
  const { rows } = await db.query<{ found: boolean }>(
    'SELECT EXISTS (SELECT 1 FROM a2a_push_configs WHERE session_id = $1 AND task_id = $2) AS found',
    [sessionId, taskId],
  );
  return rows[0]!.found;
}

/** How many configs a user has (the bound is checked again when one is kept). */
export async function countPushConfigs(db: Db, userId: string): Promise<number> {
  const { rows } = await db.query<{ count: number }>('SELECT count(*)::int AS count FROM a2a_push_configs WHERE user_id = $1', [userId]);
  return rows[0]!.count;
}

export async function getPushConfig(db: Db, keys: readonly MasterKey[], taskId: string, id: string): Promise<PushConfig | undefined> {
  const { rows } = await db.query<ConfigRow>('SELECT * FROM a2a_push_configs WHERE task_id = $1 AND id = $2', [taskId, id]);
  return rows[0] && configOf(keys, rows[0]);
}

export async function listPushConfigs(db: Db, keys: readonly MasterKey[], taskId: string): Promise<PushConfig[]> {
  const { rows } = await db.query<ConfigRow>('SELECT * FROM a2a_push_configs WHERE task_id = $1 ORDER BY created_at, id', [taskId]);
  return rows.map((row) => configOf(keys, row));
}

/** Deletes it, and with it its notifications not yet sent (a delivery running finds it gone and stops). */
export async function deletePushConfig(db: Db, taskId: string, id: string): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM a2a_push_configs WHERE task_id = $1 AND id = $2', [taskId, id]);
  return rowCount === 1;
}

/** A notification recorded, to start once its transaction commits. */
export interface RecordedPush {
  deliveryId: string;
  userId: string;
  /** Where it goes, in words (a delivery workflow's "subscription"). */
  label: string;
  type: string;
}

export interface TaskStateChange {
  sessionId: string;
  /** The A2A task: the message whose turn this is (a regenerated turn's is its user message's). */
  taskId: string;
  turnId: string;
  state: PushedState;
  /** What the status message says: why it failed, or what it waits on. */
  text?: string;
  /** Names this change once per task, so a write run again (or a config made meanwhile) adds nothing twice. */
  changeKey?: string;
  /** Only this config's (a config made after the change). */
  onlyConfig?: string;
}

/**
 * One notification per config of the task, the state change as an A2A StreamResponse (a statusUpdate),
 * inside the caller's transaction. Returns the deliveries made now, to start; none again for a change
 * recorded before. With no config (nearly every task) it is one indexed read that finds nothing.
 */
export async function insertPushDeliveries(client: Db | DbClient, change: TaskStateChange): Promise<RecordedPush[]> {
  const at = new Date().toISOString();
  const body = JSON.stringify({
    statusUpdate: {
      taskId: change.taskId,
      contextId: change.sessionId,
      status: {
        state: change.state,
        ...(change.text
          ? {
              message: {
                messageId: newId('msg'),
                contextId: change.sessionId,
                taskId: change.taskId,
                role: 'ROLE_AGENT',
                parts: [{ text: change.text }],
              },
            }
          : {}),
        timestamp: at,
      },
    },
  });
  const eventKey = `a2a:${change.taskId}:${change.turnId}:${change.changeKey ?? change.state}`;
  const { rows: configs } = await client.query<{ id: string; user_id: string }>(
    'SELECT id, user_id FROM a2a_push_configs WHERE session_id = $1 AND task_id = $2 AND ($3::text IS NULL OR id = $3) ORDER BY created_at, id',
    [change.sessionId, change.taskId, change.onlyConfig ?? null],
  );
  const made: RecordedPush[] = [];
  for (const config of configs) {
    const { rows } = await client.query<{ id: string }>(
      `INSERT INTO webhook_deliveries (id, push_task_id, push_config_id, event_type, event_key, body) VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (push_task_id, push_config_id, event_key) WHERE push_task_id IS NOT NULL DO NOTHING RETURNING id`,
      [newId('dlv'), change.taskId, config.id, `a2a.${change.state}`, eventKey, body],
    );
    if (rows[0])
      made.push({
        deliveryId: rows[0].id,
        userId: config.user_id,
        label: pushLabel(change.taskId, config.id),
        type: `a2a.${change.state}`,
      });
  }
  return made;
}

/** What one attempt needs: the notification, and its config opened. Undefined once the config is deleted. */
export async function pushTarget(
  db: Db,
  keys: readonly MasterKey[],
  deliveryId: string,
): Promise<{ id: string; body: string; status: string; type: string; config: PushConfig } | undefined> {
  const { rows } = await db.query<ConfigRow & { delivery_id: string; body: string; status: string; event_type: string }>(
    `SELECT d.id AS delivery_id, d.body, d.status, d.event_type, c.*
       FROM webhook_deliveries d JOIN a2a_push_configs c ON c.task_id = d.push_task_id AND c.id = d.push_config_id
      WHERE d.id = $1`,
    [deliveryId],
  );
  const row = rows[0];
  return row && { id: row.delivery_id, body: row.body, status: row.status, type: row.event_type, config: configOf(keys, row) };
}

/** Whether a task has ended: a notification that it waits is stale then, and not sent. */
export async function taskHasEnded(db: Db, sessionId: string, taskId: string): Promise<boolean> {
  const { rows } = await db.query<{ ended: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM events WHERE session_id = $1 AND type = ANY($2) AND data->>'turnId' = $3) AS ended`,
    [sessionId, TERMINAL_TURN_EVENTS, taskId],
  );
  return rows[0]!.ended;
}

/** How long a config outlives its task's end (a notification still retrying keeps it). */
export const PUSH_CONFIG_TTL_DAYS = 7;

/**
 * Configs of tasks that ended more than PUSH_CONFIG_TTL_DAYS ago with nothing left to send, and any config
 * 30 days old with nothing left to send: a client's configs do not fill its bound for good.
 */
export async function deleteStalePushConfigs(db: Db): Promise<number> {
  const { rowCount } = await db.query(
    `DELETE FROM a2a_push_configs c
      WHERE c.created_at < now() - make_interval(days => $2)
        AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.push_task_id = c.task_id AND d.push_config_id = c.id AND d.status = 'pending')
        AND (c.created_at < now() - interval '30 days'
             OR EXISTS (SELECT 1 FROM events e WHERE e.session_id = c.session_id AND e.type = ANY($1) AND e.data->>'turnId' = c.task_id
                          AND e.at < now() - make_interval(days => $2)))`,
    [TERMINAL_TURN_EVENTS, PUSH_CONFIG_TTL_DAYS],
  );
  return rowCount ?? 0;
}
