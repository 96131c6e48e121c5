// Device login over HTTP (RFC 8628 in shape), as the CLI and the dashboard will use it: a device asks
// for codes without a key, a logged-in user approves the user code, and the device's poll receives a
// key of that user, once, with the scopes asked for.
import { randomUUID } from 'node:crypto';
import { describe, expect } from 'vitest';
import { apiTest } from '../helpers/harness/fixtures.ts';
import { createTestUser } from '../helpers/harness/users.ts';
import { call } from '../helpers/client/request.ts';
import type { DeviceCode } from '../../contract/operations/device.ts';

const test = apiTest({ PUBLIC_BASE_URL: 'https://agents.example.com' });

type Problem = { status: number; type: string; traceId: string; detail: string; error?: string; interval?: number };

function machine(): string {
  return `laptop-${randomUUID().slice(0, 8)}`;
}

describe('device login', () => {
  test('codes, pending, approval by a logged-in user, the key once, and the key works with the scopes asked for', async ({ api, user }) => {
    const clientName = machine();
    const started = await call<DeviceCode>(`${api.url}/device/code`, { json: { clientName, scopes: ['read', 'sessions:write'] } });
    expect(started.status).toBe(200);
    const code = started.body;
    expect(code).toEqual({
      deviceCode: expect.any(String),
      userCode: expect.stringMatching(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/),
      verificationUri: 'https://agents.example.com/app/device',
      verificationUriComplete: `https://agents.example.com/app/device?code=${code.userCode}`,
      expiresIn: 600,
      interval: 5,
    });
    expect(code.deviceCode.length).toBeGreaterThanOrEqual(40);

    const pending = await call<Problem>(`${api.url}/device/token`, { json: { deviceCode: code.deviceCode } });
    expect(pending.status).toBe(400);
    expect(pending.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(pending.body).toMatchObject({ status: 400, error: 'authorization_pending', traceId: expect.any(String) });

    // The approving user sees what they approve; the code is read in any case, with or without its dash.
    const typed = code.userCode.replace('-', '').toLowerCase();
    const shown = await call(`${api.url}/device/${typed}`, { headers: user.auth });
    expect(shown.status).toBe(200);
    expect(shown.body).toEqual({
      userCode: code.userCode,
      clientName,
      requestedFrom: expect.any(String),
      requestedAt: expect.any(String),
      scopes: ['read', 'sessions:write'],
      status: 'pending',
      expiresAt: expect.any(String),
    });
    const approved = await call(`${api.url}/device/${code.userCode}/approve`, { headers: user.auth, method: 'POST' });
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({ status: 'approved', scopes: ['read', 'sessions:write'] });

    const token = await call<{ id: string; key: string; name: string; scopes: string[]; createdAt: string }>(`${api.url}/device/token`, {
      json: { deviceCode: code.deviceCode },
    });
    expect(token.status).toBe(200);
    expect(token.body).toEqual({
      id: expect.stringMatching(/^key_/),
      key: expect.stringMatching(/^sk_/),
      name: clientName,
      scopes: ['read', 'sessions:write'],
      createdAt: expect.any(String),
    });

    // Handed out once.
    const again = await call<Problem>(`${api.url}/device/token`, { json: { deviceCode: code.deviceCode } });
    expect(again.status).toBe(400);
    expect(again.body.error).toBe('invalid_grant');

    // The key is the approving user's, and holds exactly the scopes asked for.
    const deviceAuth = { authorization: `Bearer ${token.body.key}` };
    const keys = await call<{ keys: Array<{ id: string; name: string; scopes: string[] }> }>(`${api.url}/key`, { headers: deviceAuth });
    expect(keys.status).toBe(200);
    expect(keys.body.keys.find((key) => key.id === token.body.id)).toMatchObject({ name: clientName, scopes: ['read', 'sessions:write'] });
    const { body: mine } = await call<{ keys: Array<{ id: string }> }>(`${api.url}/key`, { headers: user.auth });
    expect(mine.keys.map((key) => key.id)).toContain(token.body.id);
    expect((await call(`${api.url}/secret/X`, { headers: deviceAuth, method: 'PUT', json: { value: 'v' } })).status).toBe(403);
  });

  test("without scopes the key gets the approving key's, and never more than that key holds", async ({ api, user }) => {
    const narrow = await call<{ key: string }>(`${api.url}/key`, { headers: user.auth, json: { scopes: ['read', 'keys:write'] } });
    const narrowAuth = { authorization: `Bearer ${narrow.body.key}` };

    const wide = await call<DeviceCode>(`${api.url}/device/code`, { json: { clientName: machine(), scopes: ['read', 'agents:write'] } });
    const refused = await call<Problem>(`${api.url}/device/${wide.body.userCode}/approve`, { headers: narrowAuth, method: 'POST' });
    expect(refused.status).toBe(403);
    expect(refused.body.detail).toContain('agents:write');
    // Refused, not answered: it still waits, and a key holding the scope may approve it.
    expect((await call<Problem>(`${api.url}/device/token`, { json: { deviceCode: wide.body.deviceCode } })).body.error).toBe(
      'authorization_pending',
    );
    const admin = await call<Problem>(`${api.url}/device/code`, { json: { clientName: machine(), scopes: ['admin'] } });
    const adminRefused = await call<Problem>(`${api.url}/device/${(admin.body as unknown as DeviceCode).userCode}/approve`, {
      headers: user.auth,
      method: 'POST',
    });
    expect(adminRefused.status).toBe(403);

    const unscoped = await call<DeviceCode>(`${api.url}/device/code`, { json: { clientName: machine() } });
    const shown = await call<{ scopes: string[] }>(`${api.url}/device/${unscoped.body.userCode}`, { headers: narrowAuth });
    expect(shown.body.scopes).toEqual(['read', 'keys:write']);
    expect((await call(`${api.url}/device/${unscoped.body.userCode}/approve`, { headers: narrowAuth, method: 'POST' })).status).toBe(200);
    const token = await call<{ scopes: string[] }>(`${api.url}/device/token`, { json: { deviceCode: unscoped.body.deviceCode } });
    expect(token.status).toBe(200);
    expect(token.body.scopes).toEqual(['read', 'keys:write']);
  });

  test("an admin's approval of a login that names no scopes grants no admin; one that asks for admin by name gets it", async ({
    api,
    db,
  }) => {
    const admin = await createTestUser(db, { admin: true });
    const approve = async (scopes?: string[]) => {
      const code = await call<DeviceCode>(`${api.url}/device/code`, { json: { clientName: machine(), ...(scopes ? { scopes } : {}) } });
      const shown = await call<{ scopes: string[] }>(`${api.url}/device/${code.body.userCode}`, { headers: admin.auth });
      expect((await call(`${api.url}/device/${code.body.userCode}/approve`, { headers: admin.auth, method: 'POST' })).status).toBe(200);
      const token = await call<{ scopes: string[] }>(`${api.url}/device/token`, { json: { deviceCode: code.body.deviceCode } });
      expect(token.body.scopes).toEqual(shown.body.scopes);
      return token.body.scopes;
    };
    // The approver sees where and when the login was asked from.
    const asked = await call<DeviceCode>(`${api.url}/device/code`, { json: { clientName: machine() } });
    const request = await call<{ requestedFrom: string; requestedAt: string }>(`${api.url}/device/${asked.body.userCode}`, {
      headers: admin.auth,
    });
    expect(request.body.requestedFrom).toMatch(/^(::ffff:)?127\.0\.0\.1$/);
    expect(Math.abs(Date.parse(request.body.requestedAt) - Date.now())).toBeLessThan(60_000);
    const unscoped = await approve();
    expect(unscoped).not.toContain('admin');
    expect(unscoped).toContain('agents:write');
    expect(await approve(['read', 'admin'])).toEqual(['read', 'admin']);
  });

  test('a device polling sooner than the interval is told to slow down, and the interval grows by 5 s each time', async ({ api }) => {
    const code = await call<DeviceCode>(`${api.url}/device/code`, { json: { clientName: machine() } });
    const poll = () => call<Problem>(`${api.url}/device/token`, { json: { deviceCode: code.body.deviceCode } });
    expect((await poll()).body.error).toBe('authorization_pending');
    const first = await poll();
    expect(first.status).toBe(400);
    expect(first.body).toMatchObject({ error: 'slow_down', interval: 10 });
    expect((await poll()).body).toMatchObject({ error: 'slow_down', interval: 15 });
  });

  test('a denied login answers access_denied to the device; answering twice is 409', async ({ api, user }) => {
    const code = await call<DeviceCode>(`${api.url}/device/code`, { json: { clientName: machine() } });
    const denied = await call(`${api.url}/device/${code.body.userCode}/deny`, { headers: user.auth, method: 'POST' });
    expect(denied.status).toBe(200);
    expect(denied.body).toMatchObject({ status: 'denied' });
    expect((await call<Problem>(`${api.url}/device/token`, { json: { deviceCode: code.body.deviceCode } })).body.error).toBe(
      'access_denied',
    );
    expect((await call(`${api.url}/device/${code.body.userCode}/approve`, { headers: user.auth, method: 'POST' })).status).toBe(409);
    expect((await call(`${api.url}/device/${code.body.userCode}/deny`, { headers: user.auth, method: 'POST' })).status).toBe(409);
    // Nothing was minted for it.
    expect((await call<Problem>(`${api.url}/device/token`, { json: { deviceCode: code.body.deviceCode } })).body.error).toBe(
      'access_denied',
    );
  });

  test('approving twice is 409, also by another user; the key stays the first approver’s', async ({ api, user }) => {
    const code = await call<DeviceCode>(`${api.url}/device/code`, { json: { clientName: machine() } });
    expect((await call(`${api.url}/device/${code.body.userCode}/approve`, { headers: user.auth, method: 'POST' })).status).toBe(200);
    const twice = await call<Problem>(`${api.url}/device/${code.body.userCode}/approve`, { headers: user.auth, method: 'POST' });
    expect(twice.status).toBe(409);
    expect(twice.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    const other = await createTestUser(api.db);
    expect((await call(`${api.url}/device/${code.body.userCode}/approve`, { headers: other.auth, method: 'POST' })).status).toBe(409);
    const token = await call<{ id: string }>(`${api.url}/device/token`, { json: { deviceCode: code.body.deviceCode } });
    const { body: mine } = await call<{ keys: Array<{ id: string }> }>(`${api.url}/key`, { headers: user.auth });
    expect(mine.keys.map((key) => key.id)).toContain(token.body.id);
  });

  test('an unknown user code is 404 and an unknown device code invalid_grant', async ({ api, user }) => {
    for (const userCode of ['BCDF-GHJK', 'not-a-code', 'AAAA-AAAA']) {
      expect((await call(`${api.url}/device/${userCode}`, { headers: user.auth })).status).toBe(404);
      expect((await call(`${api.url}/device/${userCode}/approve`, { headers: user.auth, method: 'POST' })).status).toBe(404);
      expect((await call(`${api.url}/device/${userCode}/deny`, { headers: user.auth, method: 'POST' })).status).toBe(404);
    }
    const unknown = await call<Problem>(`${api.url}/device/token`, { json: { deviceCode: 'dc_nothing' } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toBe('invalid_grant');
  });

  test('approving and reading need a key with the scope', async ({ api, user }) => {
    const code = await call<DeviceCode>(`${api.url}/device/code`, { json: { clientName: machine() } });
    expect((await call(`${api.url}/device/${code.body.userCode}`)).status).toBe(401);
    expect((await call(`${api.url}/device/${code.body.userCode}/approve`, { method: 'POST' })).status).toBe(401);
    const reader = await call<{ key: string }>(`${api.url}/key`, { headers: user.auth, json: { scopes: ['read'] } });
    const readerAuth = { authorization: `Bearer ${reader.body.key}` };
    expect((await call(`${api.url}/device/${code.body.userCode}`, { headers: readerAuth })).status).toBe(200);
    expect((await call(`${api.url}/device/${code.body.userCode}/approve`, { headers: readerAuth, method: 'POST' })).status).toBe(403);
  });

  test('malformed bodies are 400 with JSON pointers, and store nothing', async ({ api, db }) => {
    const clientName = machine();
    const cases: Array<[unknown, string]> = [
      [{}, '/clientName'],
      [{ clientName: '' }, '/clientName'],
      [{ clientName: 'x'.repeat(101) }, '/clientName'],
      [{ clientName, scopes: ['read', 'everything'] }, '/scopes/1'],
      [{ clientName, scopes: [] }, '/scopes'],
      [{ clientName, extra: true }, '/extra'],
    ];
    for (const [body, pointer] of cases) {
      const response = await call<Problem & { errors: Array<{ path: string }> }>(`${api.url}/device/code`, { json: body });
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body.errors.map((error) => error.path)).toContain(pointer);
      expect(response.body.error).toBeUndefined();
    }
    const token = await call<Problem & { errors: Array<{ path: string }> }>(`${api.url}/device/token`, { json: { deviceCode: 42 } });
    expect(token.status).toBe(400);
    expect(token.body.errors.map((error) => error.path)).toEqual(['/deviceCode']);
    expect(token.body.error).toBeUndefined();
    const { rows } = await db.query('SELECT 1 FROM device_authorizations WHERE client_name = $1', [clientName]);
    expect(rows).toEqual([]);
  });

  test('the device code is stored only as its hash', async ({ api, db }) => {
    const code = await call<DeviceCode>(`${api.url}/device/code`, { json: { clientName: machine() } });
    const { rows } = await db.query<Record<string, unknown>>('SELECT * FROM device_authorizations WHERE user_code = $1', [
      code.body.userCode.replace('-', ''),
    ]);
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows[0])).not.toContain(code.body.deviceCode);
  });
});
