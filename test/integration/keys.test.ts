// Users and API keys over HTTP: the admin creates a user, the user mints, lists and deletes keys,
// scopes narrow what a key may do, and the key itself is shown only once.
import { describe, expect } from 'vitest';
import { apiTest } from '../helpers/harness/fixtures.ts';
import { createTestUser } from '../helpers/harness/users.ts';
import { call } from '../helpers/client/request.ts';
import { SCOPES } from '../../contract/scopes.ts';

// The file's user is the admin.
const test = apiTest({}, { admin: true });

describe('admin users', () => {
  test('an admin creates a user whose key works', async ({ api, user: admin }) => {
    const created = await call<{ id: string; name: string; apiKey: string }>(`${api.url}/admin/users`, {
      headers: admin.auth,
      json: { name: 'alice' },
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ id: expect.stringMatching(/^usr_/), name: 'alice', apiKey: expect.stringMatching(/^sk_/) });
    const listed = await call(`${api.url}/key`, { headers: { authorization: `Bearer ${created.body.apiKey}` } });
    expect(listed.status).toBe(200);
  });

  test('a non-admin key gets 403', async ({ api }) => {
    const user = await createTestUser(api.db);
    const response = await call(`${api.url}/admin/users`, { headers: user.auth, json: { name: 'mallory' } });
    expect(response.status).toBe(403);
    expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  });

  test("the new user's key has every scope but admin, and cannot administer", async ({ api, user: admin }) => {
    const created = await call<{ apiKey: string }>(`${api.url}/admin/users`, { headers: admin.auth, json: { name: 'carol' } });
    const carol = { authorization: `Bearer ${created.body.apiKey}` };
    const listed = await call<{ keys: Array<{ scopes: string[] }> }>(`${api.url}/key`, { headers: carol });
    expect(listed.body.keys[0]!.scopes).toEqual(SCOPES.filter((scope) => scope !== 'admin'));
    expect((await call(`${api.url}/admin/users`, { headers: carol, json: { name: 'dave' } })).status).toBe(403);
    // A key cannot grant what its user may not hold, whatever it asks for.
    const asked = await call<{ detail: string }>(`${api.url}/key`, { headers: carol, json: { scopes: ['read', 'admin'] } });
    expect(asked.status).toBe(403);
    expect(asked.body.detail).toContain('admin');
  });

  test("an admin's key narrowed to read gets 403 on admin routes; an unnarrowed one inherits admin", async ({ api, user: admin }) => {
    const narrowed = await call<{ key: string; scopes: string[] }>(`${api.url}/key`, { headers: admin.auth, json: { scopes: ['read'] } });
    expect(narrowed.body.scopes).toEqual(['read']);
    const refused = await call<{ detail: string }>(`${api.url}/admin/users`, {
      headers: { authorization: `Bearer ${narrowed.body.key}` },
      json: { name: 'eve' },
    });
    expect(refused.status).toBe(403);
    expect(refused.body.detail).toContain('"admin" scope');

    // Narrowed to everything but admin: still no admin.
    const almost = await call<{ key: string }>(`${api.url}/key`, {
      headers: admin.auth,
      json: { scopes: SCOPES.filter((scope) => scope !== 'admin') },
    });
    expect(
      (await call(`${api.url}/admin/users`, { headers: { authorization: `Bearer ${almost.body.key}` }, json: { name: 'eve' } })).status,
    ).toBe(403);
    // A key without admin cannot mint one with it.
    const widened = await call(`${api.url}/key`, { headers: { authorization: `Bearer ${almost.body.key}` }, json: { scopes: ['admin'] } });
    expect(widened.status).toBe(403);

    const full = await call<{ key: string; scopes: string[] }>(`${api.url}/key`, { headers: admin.auth, json: {} });
    expect(full.body.scopes).toContain('admin');
    const allowed = await call(`${api.url}/admin/users`, {
      headers: { authorization: `Bearer ${full.body.key}` },
      json: { name: 'frank' },
    });
    expect(allowed.status).toBe(201);
  });

  test('a user needs a name', async ({ api, user: admin }) => {
    const response = await call(`${api.url}/admin/users`, { headers: admin.auth, json: {} });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({
      type: expect.any(String),
      title: expect.any(String),
      status: 400,
      detail: expect.any(String),
      traceId: expect.any(String),
      errors: [{ path: '/name', message: expect.any(String) }],
    });
  });
});

describe('keys', () => {
  test('mint a narrower key, list without secrets, delete, then 401', async ({ api }) => {
    const user = await createTestUser(api.db);
    const minted = await call<{ id: string; key: string; name: string; scopes: string[]; createdAt: string }>(`${api.url}/key`, {
      headers: user.auth,
      json: { name: 'ci', scopes: ['read'] },
    });
    expect(minted.status).toBe(201);
    expect(minted.body).toEqual({
      id: expect.stringMatching(/^key_/),
      key: expect.stringMatching(/^sk_[0-9a-z]{32}$/),
      name: 'ci',
      scopes: ['read'],
      createdAt: expect.any(String),
    });

    const narrow = { authorization: `Bearer ${minted.body.key}` };
    const listed = await call<{ keys: Record<string, unknown>[] }>(`${api.url}/key`, { headers: narrow });
    expect(listed.status).toBe(200);
    expect(listed.body.keys).toHaveLength(2);
    const mine = listed.body.keys.find((key) => key.id === minted.body.id)!;
    expect(mine).toEqual({
      id: minted.body.id,
      name: 'ci',
      prefix: minted.body.key.slice(0, 9),
      scopes: ['read'],
      createdAt: expect.any(String),
      // Use is recorded after the answer (it must not slow requests down), so it may show next time.
      lastUsedAt: expect.toBeOneOf([null, expect.any(String)]),
    });
    let lastUsedAt: unknown = mine.lastUsedAt;
    for (let tries = 0; tries < 50 && !lastUsedAt; tries++) {
      const again = await call<{ keys: Record<string, unknown>[] }>(`${api.url}/key`, { headers: narrow });
      lastUsedAt = again.body.keys.find((key) => key.id === minted.body.id)!.lastUsedAt;
    }
    expect(lastUsedAt).toEqual(expect.any(String));
    expect(listed.text).not.toContain(minted.body.key);
    expect(listed.text).not.toContain(user.apiKey);

    // The narrow key may read but not write keys.
    const forbidden = await call(`${api.url}/key`, { headers: narrow, json: {} });
    expect(forbidden.status).toBe(403);
    expect(forbidden.body).toMatchObject({ status: 403, detail: expect.stringContaining('keys:write') });

    const deleted = await call(`${api.url}/key/${minted.body.id}`, { method: 'DELETE', headers: user.auth });
    expect(deleted.status).toBe(204);
    const after = await call(`${api.url}/key`, { headers: narrow });
    expect(after.status).toBe(401);
    expect(after.body).toMatchObject({ status: 401, traceId: expect.any(String) });
  });

  test('a key cannot grant scopes it lacks', async ({ api }) => {
    const user = await createTestUser(api.db, { scopes: ['read', 'keys:write'] });
    const response = await call(`${api.url}/key`, { headers: user.auth, json: { scopes: ['secrets:write'] } });
    expect(response.status).toBe(403);
    const inherit = await call<{ scopes: string[] }>(`${api.url}/key`, { headers: user.auth, json: {} });
    expect(inherit.status).toBe(201);
    expect(inherit.body.scopes).toEqual(['read', 'keys:write']);
  });

  test('unknown scopes and properties are rejected with their paths', async ({ api }) => {
    const user = await createTestUser(api.db);
    const response = await call<{ errors: { path: string }[] }>(`${api.url}/key`, {
      headers: user.auth,
      json: { scopes: ['root'], colour: 'red' },
    });
    expect(response.status).toBe(400);
    expect(response.body.errors.map((error) => error.path).sort()).toEqual(['/colour', '/scopes/0']);
  });

  test("another user's key cannot be deleted", async ({ api }) => {
    const owner = await createTestUser(api.db);
    const other = await createTestUser(api.db);
    const minted = await call<{ id: string }>(`${api.url}/key`, { headers: owner.auth, json: {} });
    const response = await call(`${api.url}/key/${minted.body.id}`, { method: 'DELETE', headers: other.auth });
    expect(response.status).toBe(404);
    const still = await call<{ keys: { id: string }[] }>(`${api.url}/key`, { headers: owner.auth });
    expect(still.body.keys.map((key) => key.id)).toContain(minted.body.id);
  });

  test('keys are stored only as hashes', async ({ api }) => {
    const user = await createTestUser(api.db);
    const { rows } = await api.db.query<Record<string, unknown>>('SELECT * FROM api_keys WHERE user_id = $1', [user.userId]);
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows)).not.toContain(user.apiKey);
    expect(rows[0]!.key_hash).toMatch(/^[0-9a-f]{64}$/);
  });
});
