// An upgrade over data written before admin actions needed the `admin` scope and before webhook payloads
// lost their answer links: a database migrated up to 0008 is seeded the way the earlier code wrote it,
// then migrated to the end and served. Admin keys that held every scope keep administering; a narrowed
// admin key does not; stored approval.requested deliveries no longer show links to a `read` key.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, inject, test } from 'vitest';
import { createPool, inTransaction, type Db } from '../../store/db.ts';
import { migrate, readMigrations } from '../../store/migrate.ts';
import { createUser } from '../../store/users.ts';
import { insertKey } from '../../store/api-keys.ts';
import { createSubscription } from '../../store/webhook-subscriptions.ts';
import { insertDeliveries } from '../../store/webhook-deliveries.ts';
import { generateWebhookSecret } from '../../lib/webhook-signature.ts';
import { loadMasterKey } from '../../lib/master-key.ts';
import type { Scope } from '../../contract/scopes.ts';
import { startTestApi, type TestApi } from '../helpers/harness/api.ts';
import { testConfig } from '../helpers/harness/env.ts';
import { call } from '../helpers/client/request.ts';

/** Every scope there was before `admin`: what unnarrowed keys held. */
const OLD_SCOPES: Scope[] = ['agents:write', 'sessions:write', 'read', 'secrets:write', 'keys:write', 'webhooks:write', 'approvals:answer'];
const LINK = 'http://127.0.0.1:3000/approval/apr_00000000000000000000000000.abcdefghijklmnopqrst/answer';

const name = `upgrade_${randomUUID().replace(/-/g, '')}`;
const server = createPool(inject('databaseUrl'), 1);
let db: Db;
let api: TestApi;
const keys: Record<string, string> = {};
let subscriptionId: string;

beforeAll(async () => {
  await server.query(`CREATE DATABASE ${name}`);
  const url = new URL(inject('databaseUrl'));
  url.pathname = `/${name}`;
  db = createPool(url.toString(), 2);
  await migrate(
    db,
    readMigrations().filter((migration) => migration.version <= 8),
  );

  const admin = await createUser(db, { name: 'admin', isAdmin: true });
  const alice = await createUser(db, { name: 'alice' });
  keys.adminFull = (await insertKey(db, { userId: admin.id, name: 'first start', scopes: OLD_SCOPES })).key;
  keys.adminEnv = (await insertKey(db, { userId: admin.id, name: 'ADMIN_API_KEY', scopes: OLD_SCOPES, source: 'env' })).key;
  keys.adminRead = (await insertKey(db, { userId: admin.id, name: 'ci', scopes: ['read'] })).key;
  keys.aliceFull = (await insertKey(db, { userId: alice.id, name: 'first key', scopes: OLD_SCOPES })).key;
  keys.aliceRead = (await insertKey(db, { userId: alice.id, name: 'reader', scopes: ['read'] })).key;

  const subscription = await createSubscription(db, loadMasterKey(testConfig()), {
    userId: alice.id,
    url: 'https://hooks.example.com/in',
    events: ['approval.requested'],
    secret: generateWebhookSecret(),
    limit: 20,
  });
  subscriptionId = subscription.id;
  // What the approval workflow published before: the answer links in the event's data. Written with the
  // insert alone: publishing today also reads tables this schema does not have yet.
  await inTransaction(db, (client) =>
    insertDeliveries(client, {
      userId: alice.id,
      type: 'approval.requested',
      eventKey: 'approval.requested:apr_00000000000000000000000000',
      data: {
        approvalId: 'apr_00000000000000000000000000',
        sessionId: null,
        agentId: null,
        question: 'Ship it?',
        options: ['yes', 'no'],
        expiresAt: new Date().toISOString(),
        links: { page: LINK, options: [{ option: 'yes', url: `${LINK}?choice=yes` }] },
      },
    }),
  );

  expect(await migrate(db)).toEqual(
    readMigrations()
      .filter((migration) => migration.version > 8)
      .map((migration) => migration.version),
  );
  api = await startTestApi({ DATABASE_URL: url.toString() });
});

afterAll(async () => {
  await api?.close();
  await db?.end();
  await server.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await server.end();
});

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
const createUserAs = (key: string) =>
  call(`${api.url}/admin/users`, { headers: bearer(key), json: { name: `u-${randomUUID().slice(0, 6)}` } });

test('admin keys that held every scope keep administering; a narrowed admin key and other users do not', async () => {
  expect((await createUserAs(keys.adminFull!)).status).toBe(201);
  expect((await createUserAs(keys.adminEnv!)).status).toBe(201);
  expect((await createUserAs(keys.adminRead!)).status).toBe(403);
  expect((await createUserAs(keys.aliceFull!)).status).toBe(403);

  const adminKeys = await call<{ keys: Array<{ name: string; scopes: string[] }> }>(`${api.url}/key`, { headers: bearer(keys.adminFull!) });
  expect(Object.fromEntries(adminKeys.body.keys.map((key) => [key.name, key.scopes.includes('admin')]))).toEqual({
    'first start': true,
    ADMIN_API_KEY: true,
    ci: false,
  });
  const aliceKeys = await call<{ keys: Array<{ scopes: string[] }> }>(`${api.url}/key`, { headers: bearer(keys.aliceFull!) });
  expect(aliceKeys.body.keys.every((key) => !key.scopes.includes('admin'))).toBe(true);
});

test('a stored approval.requested delivery no longer shows its links to a read key', async () => {
  const listed = await call<{ deliveries: Array<{ type: string; payload: { data: Record<string, unknown> } }> }>(
    `${api.url}/webhook/${subscriptionId}/deliveries`,
    { headers: bearer(keys.aliceRead!) },
  );
  expect(listed.status).toBe(200);
  expect(listed.body.deliveries).toHaveLength(1);
  expect(listed.body.deliveries[0]!.payload.data).toMatchObject({ question: 'Ship it?', options: ['yes', 'no'] });
  expect(listed.body.deliveries[0]!.payload.data).not.toHaveProperty('links');
  expect(listed.text).not.toContain('/answer');
});
