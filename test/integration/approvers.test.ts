// The approvers directory: people who may answer a user's approvals, and groups of them. Per user,
// checked where it is written (names, addresses, members), and expanded for an approval by
// resolveApprovers.
import { describe, expect } from 'vitest';
import { apiTest } from '../helpers/harness/fixtures.ts';
import type { TestApi } from '../helpers/harness/api.ts';
import { createTestUser, type TestUser } from '../helpers/harness/users.ts';
import { call } from '../helpers/client/request.ts';
import { resolveApprovers } from '../../store/approvers.ts';
import { MAX_APPROVER_GROUPS_PER_USER, MAX_APPROVERS_PER_USER } from '../../contract/operations/approvers.ts';

const test = apiTest();

interface Problem {
  detail: string;
  errors?: { path: string; message: string }[];
}

const putApprover = (api: TestApi, who: TestUser, name: string, body: unknown) =>
  call<Record<string, unknown> & Problem>(`${api.url}/approver/${name}`, { method: 'PUT', headers: who.auth, json: body });
const putGroup = (api: TestApi, who: TestUser, name: string, members: unknown) =>
  call<Record<string, unknown> & Problem>(`${api.url}/approver-group/${name}`, { method: 'PUT', headers: who.auth, json: { members } });
const remove = (api: TestApi, who: TestUser, path: string) => call<Problem>(`${api.url}${path}`, { method: 'DELETE', headers: who.auth });

describe('approvers', () => {
  test('put creates then replaces with exactly the addresses given; list, get and delete', async ({ api }) => {
    const user = await createTestUser(api.db);
    const created = await putApprover(api, user, 'alice', {
      email: 'alice@example.com',
      slack: { userId: 'U024BE7LH' },
      telegram: { chatId: -1001234567890 },
      webhook: { url: 'https://hooks.example.com/alice' },
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      name: 'alice',
      email: 'alice@example.com',
      slack: { userId: 'U024BE7LH' },
      telegram: { chatId: '-1001234567890' },
      webhook: { url: 'https://hooks.example.com/alice' },
      groups: [],
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });

    const replaced = await putApprover(api, user, 'alice', { telegram: { chatId: '42' } });
    expect(replaced.status).toBe(200);
    expect(replaced.body).toEqual({
      name: 'alice',
      telegram: { chatId: '42' },
      groups: [],
      createdAt: created.body.createdAt,
      updatedAt: expect.any(String),
    });
    // No address at all: this person answers through a forwarded link.
    expect((await putApprover(api, user, 'bob.smith-2', {})).status).toBe(201);

    const listed = await call<{ approvers: { name: string }[] }>(`${api.url}/approver`, { headers: user.auth });
    expect(listed.body.approvers.map((approver) => approver.name)).toEqual(['alice', 'bob.smith-2']);
    const one = await call(`${api.url}/approver/alice`, { headers: user.auth });
    expect(one.body).toEqual(replaced.body);

    expect((await remove(api, user, '/approver/alice')).status).toBe(204);
    expect((await remove(api, user, '/approver/alice')).status).toBe(404);
    expect((await call(`${api.url}/approver/alice`, { headers: user.auth })).status).toBe(404);
  });

  test.for([
    [{ email: 'not-an-address' }, '/email'],
    [{ email: `${'a'.repeat(250)}@example.com` }, '/email'],
    [{ slack: { userId: 'alice' } }, '/slack/userId'],
    [{ slack: {} }, '/slack/userId'],
    [{ telegram: { chatId: '12ab' } }, '/telegram/chatId'],
    [{ telegram: { chatId: 1.5 } }, '/telegram/chatId'],
    [{ webhook: { url: 'ftp://example.com/x' } }, '/webhook/url'],
    [{ webhook: { url: 'https://user:pass@example.com/x' } }, '/webhook/url'],
    [{ webhook: { url: `https://example.com/${'x'.repeat(2048)}` } }, '/webhook/url'],
    [{ phone: '+4912345' }, '/phone'],
  ] as const)('%j is refused at %s', async ([body, path], { api, user }) => {
    const refused = await putApprover(api, user, 'refused', body);
    expect(refused.status).toBe(400);
    expect(refused.body.errors?.map((error) => error.path)).toContain(path);
  });

  test.for(['me', 'group:ops', 'Alice', '-dash-first', 'has space', 'x'.repeat(64)])(
    'the name %s is refused',
    async (name, { api, user }) => {
      expect((await putApprover(api, user, encodeURIComponent(name), {})).status).toBe(400);
      expect((await putGroup(api, user, encodeURIComponent(name), ['nobody'])).status).toBe(400);
    },
  );

  test('a read key reads the directory but cannot change it', async ({ api }) => {
    const user = await createTestUser(api.db);
    expect((await putApprover(api, user, 'carol', { email: 'carol@example.com' })).status).toBe(201);
    const minted = await call<{ key: string }>(`${api.url}/key`, { headers: user.auth, json: { name: 'reader', scopes: ['read'] } });
    const reader: TestUser = { ...user, auth: { authorization: `Bearer ${minted.body.key}` } };
    expect((await call(`${api.url}/approver`, { headers: reader.auth })).status).toBe(200);
    expect((await call(`${api.url}/approver/carol`, { headers: reader.auth })).status).toBe(200);
    expect((await call(`${api.url}/approver-group`, { headers: reader.auth })).status).toBe(200);
    expect((await putApprover(api, reader, 'dave', {})).status).toBe(403);
    expect((await remove(api, reader, '/approver/carol')).status).toBe(403);
    expect((await putGroup(api, reader, 'team', ['carol'])).status).toBe(403);
    expect((await remove(api, reader, '/approver-group/team')).status).toBe(403);
  });

  test('at most MAX_APPROVERS_PER_USER approvers: a new one past it is 409, replacing one is not', async ({ api }) => {
    const user = await createTestUser(api.db);
    await api.db.query(`INSERT INTO approvers (user_id, name) SELECT $1, 'p' || i FROM generate_series(1, $2::int) AS i`, [
      user.userId,
      MAX_APPROVERS_PER_USER,
    ]);
    const refused = await putApprover(api, user, 'one-more', {});
    expect(refused.status).toBe(409);
    expect(refused.body.detail).toContain(String(MAX_APPROVERS_PER_USER));
    expect((await putApprover(api, user, 'p1', { email: 'p1@example.com' })).status).toBe(200);
  });
});

describe('approver groups', () => {
  test('members must be approvers of the user; a group is listed, read, replaced and deleted', async ({ api }) => {
    const user = await createTestUser(api.db);
    for (const name of ['ann', 'ben', 'cat']) expect((await putApprover(api, user, name, {})).status).toBe(201);

    const unknown = await putGroup(api, user, 'oncall', ['ann', 'zed', 'ben', 'yan']);
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors).toEqual([
      { path: '/members/1', message: 'is not one of your approvers' },
      { path: '/members/3', message: 'is not one of your approvers' },
    ]);
    expect(unknown.body.detail).toContain('"zed"');
    for (const members of [[], ['ann', 'ann'], ['group:x'], Array.from({ length: 51 }, (_, i) => `m${i}`)]) {
      expect((await putGroup(api, user, 'oncall', members)).status, JSON.stringify(members)).toBe(400);
    }
    expect((await call(`${api.url}/approver-group/oncall`, { headers: user.auth })).status).toBe(404);

    const created = await putGroup(api, user, 'oncall', ['ben', 'ann']);
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ name: 'oncall', members: ['ben', 'ann'], createdAt: expect.any(String), updatedAt: expect.any(String) });
    expect((await putGroup(api, user, 'leads', ['ann'])).status).toBe(201);
    const replaced = await putGroup(api, user, 'oncall', ['ann', 'cat']);
    expect(replaced.status).toBe(200);
    expect(replaced.body.members).toEqual(['ann', 'cat']);

    const groups = await call<{ groups: { name: string; members: string[] }[] }>(`${api.url}/approver-group`, { headers: user.auth });
    expect(groups.body.groups.map((group) => [group.name, group.members])).toEqual([
      ['leads', ['ann']],
      ['oncall', ['ann', 'cat']],
    ]);
    expect((await call(`${api.url}/approver/ann`, { headers: user.auth })).body.groups).toEqual(['leads', 'oncall']);
    expect((await call(`${api.url}/approver/ben`, { headers: user.auth })).body.groups).toEqual([]);

    const inGroups = await remove(api, user, '/approver/ann');
    expect(inGroups.status).toBe(409);
    expect(inGroups.body.detail).toContain('"leads", "oncall"');
    expect((await call(`${api.url}/approver/ann`, { headers: user.auth })).status).toBe(200);

    expect((await remove(api, user, '/approver-group/leads')).status).toBe(204);
    expect((await remove(api, user, '/approver-group/leads')).status).toBe(404);
    expect((await putGroup(api, user, 'oncall', ['cat'])).status).toBe(200);
    expect((await remove(api, user, '/approver/ann')).status).toBe(204);
  });

  test('at most MAX_APPROVER_GROUPS_PER_USER groups: a new one past it is 409, replacing one is not', async ({ api }) => {
    const user = await createTestUser(api.db);
    expect((await putApprover(api, user, 'solo', {})).status).toBe(201);
    await api.db.query(
      `INSERT INTO approver_groups (user_id, name, members) SELECT $1, 'g' || i, ARRAY['solo'] FROM generate_series(1, $2::int) AS i`,
      [user.userId, MAX_APPROVER_GROUPS_PER_USER],
    );
    expect((await putGroup(api, user, 'one-more', ['solo'])).status).toBe(409);
    expect((await putGroup(api, user, 'g1', ['solo'])).status).toBe(200);
  });
});

test("another user's directory is invisible", async ({ api }) => {
  const owner = await createTestUser(api.db);
  const other = await createTestUser(api.db);
  expect((await putApprover(api, owner, 'private', { email: 'p@example.com' })).status).toBe(201);
  expect((await putGroup(api, owner, 'private-team', ['private'])).status).toBe(201);

  expect((await call<{ approvers: unknown[] }>(`${api.url}/approver`, { headers: other.auth })).body.approvers).toEqual([]);
  expect((await call<{ groups: unknown[] }>(`${api.url}/approver-group`, { headers: other.auth })).body.groups).toEqual([]);
  expect((await call(`${api.url}/approver/private`, { headers: other.auth })).status).toBe(404);
  expect((await call(`${api.url}/approver-group/private-team`, { headers: other.auth })).status).toBe(404);
  expect((await remove(api, other, '/approver/private')).status).toBe(404);
  expect((await remove(api, other, '/approver-group/private-team')).status).toBe(404);
  const borrowed = await putGroup(api, other, 'mine', ['private']);
  expect(borrowed.status).toBe(400);
  expect(borrowed.body.errors).toEqual([{ path: '/members/0', message: 'is not one of your approvers' }]);
  expect(await resolveApprovers(api.db, other.userId, ['private', 'group:private-team'])).toEqual({
    seats: [],
    unknown: ['private', 'group:private-team'],
  });
  // Its own name for someone else's is its own person.
  expect((await putApprover(api, other, 'private', {})).status).toBe(201);
  expect((await call(`${api.url}/approver/private`, { headers: owner.auth })).body.email).toBe('p@example.com');
});

test('resolveApprovers expands groups into distinct seats in first-seen order and reports unknown names', async ({ api }) => {
  const user = await createTestUser(api.db);
  await putApprover(api, user, 'ann', { email: 'ann@example.com', slack: { userId: 'U0ANN' } });
  await putApprover(api, user, 'ben', { telegram: { chatId: 77 } });
  await putApprover(api, user, 'cat', { webhook: { url: 'https://hooks.example.com/cat' } });
  await putGroup(api, user, 'ops', ['cat', 'ann']);
  await putGroup(api, user, 'all', ['ann', 'ben', 'cat']);

  const resolved = await resolveApprovers(api.db, user.userId, [
    'ben',
    'group:ops',
    'me',
    'nobody',
    'group:all',
    'me',
    'group:none',
    'nobody',
  ]);
  expect(resolved.seats).toEqual([
    { name: 'ben', email: null, slackUserId: null, telegramChatId: '77', webhookUrl: null },
    { name: 'cat', email: null, slackUserId: null, telegramChatId: null, webhookUrl: 'https://hooks.example.com/cat' },
    { name: 'ann', email: 'ann@example.com', slackUserId: 'U0ANN', telegramChatId: null, webhookUrl: null },
    { name: 'me', email: null, slackUserId: null, telegramChatId: null, webhookUrl: null },
  ]);
  expect(resolved.unknown).toEqual(['nobody', 'group:none']);

  expect(await resolveApprovers(api.db, user.userId, [])).toEqual({ seats: [], unknown: [] });
  expect(await resolveApprovers(api.db, user.userId, ['me'])).toEqual({
    seats: [{ name: 'me', email: null, slackUserId: null, telegramChatId: null, webhookUrl: null }],
    unknown: [],
  });
  expect((await resolveApprovers(api.db, user.userId, ['group:', 'Ann'])).unknown).toEqual(['group:', 'Ann']);
});
