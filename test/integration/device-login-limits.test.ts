// Device logins are short-lived and cheap to ask for only within limits: codes expire after
// DEVICE_CODE_TTL_MS (three seconds here), expired requests are swept, and one address may ask for
// DEVICE_CODE_RATE_LIMIT_POINTS codes per window.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { describe, expect, vi } from 'vitest';
import { apiTest } from '../helpers/harness/fixtures.ts';
import { startTestApi } from '../helpers/harness/api.ts';
import { call } from '../helpers/client/request.ts';
import type { DeviceCode } from '../../contract/operations/device.ts';
import type { Db } from '../../store/db.ts';

const TTL_MS = 3_000;
// Behind one trusted proxy hop, so each test asks from an address of its own.
const test = apiTest({ DEVICE_CODE_TTL_MS: String(TTL_MS), DEVICE_CODE_RATE_LIMIT_POINTS: '3', TRUST_PROXY_HOPS: '1' });

type Problem = { status: number; error?: string };

function from(address: string) {
  return { 'x-forwarded-for': address };
}

function machine(): string {
  return `box-${randomUUID().slice(0, 8)}`;
}

/** Waits until the database's clock is past `expiresAt` (the service judges expiry by it). */
async function pastExpiry(db: Db, expiresAt: string) {
  await vi.waitFor(
    async () => {
      const { rows } = await db.query<{ past: boolean }>('SELECT now() >= $1::timestamptz AS past', [expiresAt]);
      expect(rows[0]!.past).toBe(true);
    },
    { timeout: 10_000, interval: 100 },
  );
}

describe('expiry', () => {
  test('an expired code answers expired_token to the device, approved or not, and is not found by the approver', async ({
    api,
    user,
    db,
  }) => {
    const ask = () => call<DeviceCode>(`${api.url}/device/code`, { headers: from('203.0.113.1'), json: { clientName: machine() } });
    const waiting = (await ask()).body;
    const approvedInTime = (await ask()).body;
    expect(waiting.expiresIn).toBe(3);
    const approved = await call<{ expiresAt: string }>(`${api.url}/device/${approvedInTime.userCode}/approve`, {
      headers: user.auth,
      method: 'POST',
    });
    expect(approved.status).toBe(200);

    // The later of the two expiries: the approved request was made second.
    await pastExpiry(db, approved.body.expiresAt);
    for (const code of [waiting, approvedInTime]) {
      const poll = await call<Problem>(`${api.url}/device/token`, { json: { deviceCode: code.deviceCode } });
      expect(poll.status).toBe(400);
      expect(poll.body.error).toBe('expired_token');
    }
    expect((await call(`${api.url}/device/${waiting.userCode}`, { headers: user.auth })).status).toBe(404);
    expect((await call(`${api.url}/device/${waiting.userCode}/approve`, { headers: user.auth, method: 'POST' })).status).toBe(404);
    expect((await call(`${api.url}/device/${waiting.userCode}/deny`, { headers: user.auth, method: 'POST' })).status).toBe(404);
  });

  test('housekeeping removes requests expired for longer than they lived', async ({ db }) => {
    // An API of its own that sweeps often (and a DATA_DIR of its own, for the uploads sweep beside it).
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-service-test-data-'));
    const sweeping = await startTestApi({ DEVICE_CODE_TTL_MS: String(TTL_MS), HOUSEKEEPING_INTERVAL_MS: '200', DATA_DIR: dataDir });
    try {
      const clientName = machine();
      const code = await call<DeviceCode>(`${sweeping.url}/device/code`, { json: { clientName } });
      expect(code.status).toBe(200);
      await vi.waitFor(
        async () => {
          const { rows } = await db.query('SELECT 1 FROM device_authorizations WHERE client_name = $1', [clientName]);
          expect(rows).toEqual([]);
        },
        { timeout: 15_000, interval: 200 },
      );
      const poll = await call<Problem>(`${sweeping.url}/device/token`, { json: { deviceCode: code.body.deviceCode } });
      expect(poll.body.error).toBe('invalid_grant');
    } finally {
      await sweeping.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('rate limit', () => {
  test('one address asks for at most DEVICE_CODE_RATE_LIMIT_POINTS codes per window; a refused request stores nothing', async ({
    api,
    db,
  }) => {
    const address = '203.0.113.2';
    for (let i = 0; i < 3; i++) {
      expect((await call(`${api.url}/device/code`, { headers: from(address), json: { clientName: machine() } })).status).toBe(200);
    }
    const clientName = machine();
    const limited = await call(`${api.url}/device/code`, { headers: from(address), json: { clientName } });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(limited.headers.get('retry-after')).toMatch(/^\d+$/);
    const { rows } = await db.query('SELECT 1 FROM device_authorizations WHERE client_name = $1', [clientName]);
    expect(rows).toEqual([]);

    // Another address is not affected.
    expect((await call(`${api.url}/device/code`, { headers: from('203.0.113.3'), json: { clientName: machine() } })).status).toBe(200);
  });
});
