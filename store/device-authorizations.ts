// Device logins (RFC 8628 in shape): one row per request of a device, found by the hash of its
// device code (the device polling) or by its user code (the person approving). Expiry is judged by
// PostgreSQL's clock, the same for every API process.
import type { Db } from './db.ts';
import { inTransaction } from './db.ts';
import { insertKey, type ApiKey } from './api-keys.ts';
import type { Scope } from '../contract/scopes.ts';
import type { DeviceAuthorizationStatus } from '../contract/operations/device.ts';

export interface DeviceAuthorization {
  userCode: string;
  clientName: string;
  /** The client address that asked (null for requests from before it was kept). */
  requestedFrom: string | null;
  requestedAt: Date;
  requestedScopes: Scope[] | null;
  grantedScopes: Scope[] | null;
  status: DeviceAuthorizationStatus;
  expiresAt: Date;
}

interface Row {
  user_code: string;
  client_name: string;
  requested_from: string | null;
  created_at: Date;
  requested_scopes: Scope[] | null;
  granted_scopes: Scope[] | null;
  status: DeviceAuthorizationStatus;
  expires_at: Date;
}

function toAuthorization(row: Row): DeviceAuthorization {
  return {
    userCode: row.user_code,
    clientName: row.client_name,
    requestedFrom: row.requested_from,
    requestedAt: row.created_at,
    requestedScopes: row.requested_scopes,
    grantedScopes: row.granted_scopes,
    status: row.status,
    expiresAt: row.expires_at,
  };
}

/** Inserts a request; false when its user code is taken (the caller draws another). */
export async function insertDeviceAuthorization(
  db: Db,
  input: {
    deviceCodeHash: string;
    userCode: string;
    clientName: string;
    requestedFrom: string | null;
    scopes: readonly Scope[] | null;
    intervalSeconds: number;
    ttlMs: number;
  },
): Promise<boolean> {
  const { rowCount } = await db.query(
    `INSERT INTO device_authorizations (device_code_hash, user_code, client_name, requested_from, requested_scopes, interval_seconds, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, now() + $7::float8 * interval '1 millisecond')
     ON CONFLICT (user_code) DO NOTHING`,
    [input.deviceCodeHash, input.userCode, input.clientName, input.requestedFrom, input.scopes, input.intervalSeconds, input.ttlMs],
  );
  return rowCount === 1;
}

/** An unexpired request by its (normalised) user code. */
export async function findDeviceAuthorization(db: Db, userCode: string): Promise<DeviceAuthorization | undefined> {
  const { rows } = await db.query<Row>('SELECT * FROM device_authorizations WHERE user_code = $1 AND expires_at > now()', [userCode]);
  return rows[0] && toAuthorization(rows[0]);
}

/**
 * Answers a pending, unexpired request once. undefined when it was no longer pending (or expired in
 * the meantime): the caller tells which by reading it again.
 */
export async function answerDeviceAuthorization(
  db: Db,
  userCode: string,
  answer: { status: 'approved'; userId: string; scopes: readonly Scope[] } | { status: 'denied' },
): Promise<DeviceAuthorization | undefined> {
  const approved = answer.status === 'approved';
  const { rows } = await db.query<Row>(
    `UPDATE device_authorizations SET status = $2, approved_by = $3, granted_scopes = $4
      WHERE user_code = $1 AND status = 'pending' AND expires_at > now()
      RETURNING *`,
    [userCode, answer.status, approved ? answer.userId : null, approved ? answer.scopes : null],
  );
  return rows[0] && toAuthorization(rows[0]);
}

/** What one poll found, in the order RFC 8628 §3.5 checks it. */
export type PollOutcome =
  | { kind: 'unknown' }
  | { kind: 'handedOut' }
  | { kind: 'expired' }
  | { kind: 'denied' }
  | { kind: 'slowDown'; intervalSeconds: number }
  | { kind: 'pending' }
  | { kind: 'key'; apiKey: ApiKey; key: string };

/** The seconds RFC 8628 adds to the interval of a device that polls too soon. */
const SLOW_DOWN_STEP_SECONDS = 5;

/**
 * One poll of a device. The row is locked for the poll, so concurrent polls of one code are judged
 * one after the other: exactly one of them mints the key, and the interval grows once per early poll.
 */
export async function pollDeviceAuthorization(db: Db, deviceCodeHash: string): Promise<PollOutcome> {
  return inTransaction(db, async (client) => {
    const { rows } = await client.query<{
      status: DeviceAuthorizationStatus;
      client_name: string;
      approved_by: string | null;
      granted_scopes: Scope[] | null;
      key_id: string | null;
      interval_seconds: number;
      expired: boolean;
      too_soon: boolean;
    }>(
      `SELECT status, client_name, approved_by, granted_scopes, key_id, interval_seconds,
              expires_at <= now() AS expired,
              coalesce(last_polled_at > now() - interval_seconds * interval '1 second', false) AS too_soon
         FROM device_authorizations WHERE device_code_hash = $1 FOR UPDATE`,
      [deviceCodeHash],
    );
    const row = rows[0];
    if (!row) return { kind: 'unknown' };
    if (row.key_id) return { kind: 'handedOut' };
    if (row.expired) return { kind: 'expired' };
    if (row.status === 'denied') return { kind: 'denied' };
    if (row.status === 'approved') {
      const { apiKey, key } = await insertKey(client, { userId: row.approved_by!, name: row.client_name, scopes: row.granted_scopes! });
      await client.query('UPDATE device_authorizations SET key_id = $2, last_polled_at = now() WHERE device_code_hash = $1', [
        deviceCodeHash,
        apiKey.id,
      ]);
      return { kind: 'key', apiKey, key };
    }
    const intervalSeconds = row.too_soon ? row.interval_seconds + SLOW_DOWN_STEP_SECONDS : row.interval_seconds;
    await client.query('UPDATE device_authorizations SET last_polled_at = now(), interval_seconds = $2 WHERE device_code_hash = $1', [
      deviceCodeHash,
      intervalSeconds,
    ]);
    return row.too_soon ? { kind: 'slowDown', intervalSeconds } : { kind: 'pending' };
  });
}

/**
 * Removes requests expired for longer than `graceMs`: until then a late poll still hears
 * expired_token rather than invalid_grant.
 */
export async function deleteExpiredDeviceAuthorizations(db: Db, graceMs: number): Promise<number> {
  const { rowCount } = await db.query(
    `DELETE FROM device_authorizations WHERE expires_at <= now() - $1::float8 * interval '1 millisecond'`,
    [graceMs],
  );
  return rowCount ?? 0;
}
