// Secrets are write-only: stored encrypted, listed by name, and never in a response or log line.
import { randomUUID } from 'node:crypto';
import { describe, expect } from 'vitest';
import { apiTest } from '../helpers/harness/fixtures.ts';
import type { TestApi } from '../helpers/harness/api.ts';
import { createTestUser, type TestUser } from '../helpers/harness/users.ts';
import { call } from '../helpers/client/request.ts';
import { readSecrets } from '../../store/secrets.ts';
import { loadMasterKey, parseMasterKey } from '../../lib/master-key.ts';

const test = apiTest();

const put = (api: TestApi, who: TestUser, key: string, value: unknown) =>
  call(`${api.url}/secret/${key}`, { method: 'PUT', headers: who.auth, json: { value } });

describe('secrets API', () => {
  test('put creates then replaces; list shows names and dates only; delete removes', async ({ api, user }) => {
    expect((await put(api, user, 'OPENAI_API_KEY', 'sk-first')).status).toBe(201);
    const replaced = await put(api, user, 'OPENAI_API_KEY', 'sk-second');
    expect(replaced.status).toBe(200);
    expect(replaced.body).toEqual({ key: 'OPENAI_API_KEY', hosts: [], createdAt: expect.any(String), updatedAt: expect.any(String) });
    const listed = await call<{ secrets: Record<string, unknown>[] }>(`${api.url}/secret`, { headers: user.auth });
    expect(listed.body.secrets).toContainEqual({
      key: 'OPENAI_API_KEY',
      hosts: [],
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect(listed.text).not.toContain('sk-second');
    const opened = await readSecrets(api.db, [loadMasterKey(api.config)], user.userId, ['OPENAI_API_KEY']);
    expect(opened.get('OPENAI_API_KEY')).toBe('sk-second');
    expect((await call(`${api.url}/secret/OPENAI_API_KEY`, { method: 'DELETE', headers: user.auth })).status).toBe(204);
    expect((await call(`${api.url}/secret/OPENAI_API_KEY`, { method: 'DELETE', headers: user.auth })).status).toBe(404);
  });

  test.for(['1STARTS_WITH_DIGIT', 'has-dash', 'has.dot', 'x'.repeat(129), '%00'])('the name %s is rejected', async (key, { api, user }) => {
    expect((await put(api, user, encodeURIComponent(key), 'v')).status).toBe(400);
  });

  test('values must be non-empty strings of at most 64 KiB', async ({ api, user }) => {
    expect((await put(api, user, 'EMPTY', '')).status).toBe(400);
    expect((await put(api, user, 'NUMBER', 42)).status).toBe(400);
    expect((await put(api, user, 'HUGE', 'x'.repeat(64 * 1024 + 1))).status).toBe(400);
    expect((await put(api, user, 'FITS', 'é'.repeat(1000))).status).toBe(201);
  });

  test('hosts: listed, replaced when given, kept when left out, cleared by []; refused unless lower-case host names', async ({
    api,
    user,
  }) => {
    const putBody = (key: string, body: object) => call(`${api.url}/secret/${key}`, { method: 'PUT', headers: user.auth, json: body });
    expect((await putBody('HOSTED', { value: 'v', hosts: ['api.github.com', '*.example.com'] })).body).toMatchObject({
      hosts: ['api.github.com', '*.example.com'],
    });
    expect((await putBody('HOSTED', { value: 'v2' })).body).toMatchObject({ hosts: ['api.github.com', '*.example.com'] });
    const listed = await call<{ secrets: { key: string; hosts: string[] }[] }>(`${api.url}/secret`, { headers: user.auth });
    expect(listed.body.secrets.find((secret) => secret.key === 'HOSTED')!.hosts).toEqual(['api.github.com', '*.example.com']);
    expect((await putBody('HOSTED', { value: 'v3', hosts: [] })).body).toMatchObject({ hosts: [] });
    expect((await putBody('UNHOSTED', { value: 'v' })).body).toMatchObject({ hosts: [] });
    for (const hosts of [
      ['https://api.github.com'],
      ['API.GITHUB.COM'],
      ['api.github.com/path'],
      ['a.*.com'],
      ['x', 'x'],
      Array(21)
        .fill(0)
        .map((_, i) => `h${i}.com`),
    ]) {
      const refused = await putBody('HOSTED', { value: 'v4', hosts });
      expect(refused.status, JSON.stringify(hosts)).toBe(400);
    }
  });

  test("another user's secrets are invisible", async ({ api, user }) => {
    const other = await createTestUser(api.db);
    await put(api, user, 'PRIVATE_TO_OWNER', 'v');
    const listed = await call<{ secrets: { key: string }[] }>(`${api.url}/secret`, { headers: other.auth });
    expect(listed.body.secrets.map((secret) => secret.key)).not.toContain('PRIVATE_TO_OWNER');
    expect((await call(`${api.url}/secret/PRIVATE_TO_OWNER`, { method: 'DELETE', headers: other.auth })).status).toBe(404);
  });

  test('a read-only key cannot write secrets', async ({ api }) => {
    const reader = await createTestUser(api.db, { scopes: ['read'] });
    expect((await put(api, reader, 'NOPE', 'v')).status).toBe(403);
  });
});

describe('at rest', () => {
  test('the table holds no plaintext, and a value sealed for one owner does not open for another', async ({ api, user }) => {
    const canary = `canary-${randomUUID()}`;
    await put(api, user, 'AT_REST', canary);
    const { rows } = await api.db.query<Record<string, unknown>>("SELECT * FROM secrets WHERE user_id = $1 AND key = 'AT_REST'", [
      user.userId,
    ]);
    expect(rows).toHaveLength(1);
    const dump = JSON.stringify(rows, (_key, value: unknown) =>
      value && typeof value === 'object' && 'type' in value && (value as { type: string }).type === 'Buffer'
        ? Buffer.from((value as unknown as { data: number[] }).data).toString('latin1')
        : value,
    );
    expect(dump).not.toContain(canary);
    expect(dump).not.toContain(Buffer.from(canary).toString('base64'));

    const other = await createTestUser(api.db);
    await api.db.query(
      "INSERT INTO secrets (user_id, key, key_id, nonce, ciphertext, auth_tag) SELECT $1, key, key_id, nonce, ciphertext, auth_tag FROM secrets WHERE user_id = $2 AND key = 'AT_REST'",
      [other.userId, user.userId],
    );
    await expect(readSecrets(api.db, [loadMasterKey(api.config)], other.userId, ['AT_REST'])).rejects.toThrow();
  });

  test('a value sealed under another master key is refused with a clear error', async ({ api, user }) => {
    await put(api, user, 'ROTATED', 'v');
    const otherKey = parseMasterKey('another-master-key-0123456789abcdefghijklmnop');
    await expect(readSecrets(api.db, [otherKey], user.userId, ['ROTATED'])).rejects.toThrow(/No master key with id/);
  });
});

test('a canary secret appears in no response and no log line', async ({ api, user }) => {
  const canary = `canary-${randomUUID()}`;
  const responses: string[] = [];
  const record = async (promise: Promise<{ text: string; headers: Headers }>) => {
    const response = await promise;
    responses.push(response.text, JSON.stringify([...response.headers]));
  };
  await record(put(api, user, 'CANARY', canary));
  await record(put(api, user, 'CANARY', canary));
  const name = `canary-${randomUUID().slice(0, 8)}`;
  const bundle = (extra: string) =>
    JSON.stringify({ name, model: { providerId: 'openai', modelId: 'gpt' }, secretGrants: ['CANARY'], ...(JSON.parse(extra) as object) });
  for (const extra of [
    '{}',
    '{"strictSecrets": true}',
    '{"userChannels": [{"provider": "slack", "config": {"botToken": "{{secrets.CANARY}}"}}]}',
  ]) {
    await record(call(`${api.url}/deploy`, { headers: { ...user.auth, 'content-type': 'application/json' }, body: bundle(extra) }));
  }
  await record(call(`${api.url}/deploy`, { headers: { ...user.auth, 'content-type': 'application/json' }, body: '{"broken": ' }));
  await record(call(`${api.url}/secret`, { headers: user.auth }));
  await record(call(`${api.url}/agent`, { headers: user.auth }));
  await record(call(`${api.url}/agent/${name}`, { headers: user.auth }));
  await record(call(`${api.url}/agent/${name}/revisions/1`, { headers: user.auth }));
  await record(call(`${api.url}/secret/CANARY`, { method: 'PUT', headers: user.auth, json: { value: canary, extra: canary } }));
  await record(call(`${api.url}/secret/BAD-NAME`, { method: 'PUT', headers: user.auth, json: { value: canary } }));

  expect(responses.length).toBeGreaterThan(10);
  for (const text of responses) expect(text).not.toContain(canary);
  expect(JSON.stringify(api.logs)).not.toContain(canary);
  expect(api.logs.length).toBeGreaterThan(10);
});
