// Rotating the master key as an operator does, with the service's own processes (`api/server.ts`,
// `workers/main.ts`, `npm run reseal`): a secret, a webhook subscription, an approval link and a
// webhook trigger URL are made under key A; the processes restart with SERVICE_MASTER_KEY=B and
// SERVICE_MASTER_KEY_PREVIOUS=A and all four still work; `npm run reseal` moves every sealed row to
// B, after which B alone serves them. With B alone before resealing, what fails names A's key id.
// The service gets a database of its own: resealing rewrites every row of the database it is given.
import { execFile } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest';
import { createPool, type Db } from '../../store/db.ts';
import { migrate } from '../../store/migrate.ts';
import { createUser } from '../../store/users.ts';
import { insertKey } from '../../store/api-keys.ts';
import { parseMasterKey } from '../../lib/master-key.ts';
import { verifyWebhook, type WebhookEvent } from '../../lib/webhook-signature.ts';
import { scopesFor } from '../../contract/scopes.ts';
import { startApiProcess, type ApiProcess } from '../helpers/harness/api-process.ts';
import { startWorkerProcess, type WorkerProcess } from '../helpers/harness/worker-process.ts';
import { startFakeModel, type FakeModel } from '../helpers/fakes/fake-model.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/fakes/webhook-receiver.ts';
import { call } from '../helpers/client/request.ts';

const KEY_A = `rotation-key-a-${randomBytes(24).toString('hex')}`;
const KEY_B = `rotation-key-b-${randomBytes(24).toString('hex')}`;
const ID_A = parseMasterKey(KEY_A).id;
const ID_B = parseMasterKey(KEY_B).id;
/** The model key the agent is granted: it reaches the fake model only if its secret opens. */
const CANARY = `sk-canary-${randomUUID()}`;

const database = `rotation_${randomUUID().replace(/-/g, '')}`;
const server = createPool(inject('databaseUrl'), 1);
let databaseUrl: string;
let db: Db;
let fake: FakeModel;
let receiver: WebhookReceiver;
let settings: Record<string, string>;
let auth: Record<string, string>;
let running: { api: ApiProcess; worker: WorkerProcess } | undefined;

/** What stage 1 made under key A, used by the stages after it. */
const made = { agent: '', webhookSecret: '', approvalId: '', approvalPath: '', triggerUrlA: '', triggerUrlB: '' };

beforeAll(async () => {
  await server.query(`CREATE DATABASE ${database}`);
  const url = new URL(inject('databaseUrl'));
  url.pathname = `/${database}`;
  databaseUrl = url.toString();
  db = createPool(databaseUrl, 2);
  await migrate(db);
  const user = await createUser(db, { name: 'rotator' });
  auth = { authorization: `Bearer ${(await insertKey(db, { userId: user.id, name: 'all', scopes: scopesFor({ isAdmin: false }) })).key}` };
  fake = await startFakeModel();
  fake.setHandler(() => ({ text: 'Done.' }));
  receiver = await startWebhookReceiver();
  settings = {
    DATABASE_URL: databaseUrl,
    TASK_QUEUE: `test-${randomUUID()}`,
    OPENAI_COMPATIBLE_BASE_URL: fake.baseUrl,
    OPENAI_COMPATIBLE_API_KEY: 'the-environment-key',
    OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8',
    MODEL_STEP_MAX_ATTEMPTS: '1',
    // Sessions end soon after their turn, so no session workflow outlives the keys it was started under.
    SESSION_IDLE_MS: '1000',
  };
});

afterAll(async () => {
  await stopService();
  await receiver?.close();
  await fake?.close();
  await db?.end();
  await server.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`).catch(() => undefined);
  await server.end();
});

/** The API and a worker, both with `current` as SERVICE_MASTER_KEY and `previous` as SERVICE_MASTER_KEY_PREVIOUS. */
async function startService(current: string, previous: string[] = []): Promise<ApiProcess> {
  await stopService();
  const keys = { SERVICE_MASTER_KEY: current, SERVICE_MASTER_KEY_PREVIOUS: previous.join(',') };
  const [api, worker] = await Promise.all([startApiProcess({ ...settings, ...keys }), startWorkerProcess({ ...settings, ...keys })]);
  running = { api, worker };
  return api;
}

async function stopService(): Promise<void> {
  await Promise.all([running?.api.kill('SIGTERM'), running?.worker.kill('SIGTERM')]);
  running = undefined;
}

/** `npm run reseal` with `current` and `previous` as the master keys. */
function reseal(current: string, previous: string[], args: string[] = []): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      'npm',
      ['run', '--silent', 'reseal', '--', ...args],
      {
        cwd: path.resolve('.'),
        env: {
          ...process.env,
          NODE_ENV: 'test',
          DATABASE_URL: databaseUrl,
          SERVICE_MASTER_KEY: current,
          SERVICE_MASTER_KEY_PREVIOUS: previous.join(','),
        },
      },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** The master key id of every sealed row: the secrets by name, then the webhook subscriptions' secrets. */
async function sealedKeyIds(): Promise<{ secrets: Record<string, string>; webhooks: string[] }> {
  const secrets = await db.query<{ key: string; key_id: string }>('SELECT key, key_id FROM secrets ORDER BY key');
  const webhooks = await db.query<{ secret_key_id: string }>('SELECT secret_key_id FROM webhook_subscriptions');
  return {
    secrets: Object.fromEntries(secrets.rows.map((row) => [row.key, row.key_id])),
    webhooks: webhooks.rows.map((row) => row.secret_key_id),
  };
}

/** A turn in a fresh session of the agent, waited for: its status and error. */
async function turn(api: ApiProcess): Promise<{ sessionId: string; status: string; error?: string }> {
  const session = await call<{ id: string }>(`${api.url}/agent/${made.agent}/session`, { headers: auth, json: {} });
  expect(session.status).toBe(201);
  const sent = await call<{ status: string; error?: string }>(`${api.url}/session/${session.body.id}`, {
    headers: auth,
    json: { parts: [{ type: 'text', text: 'Are you there?' }] },
  });
  expect(sent.status).toBe(200);
  return { sessionId: session.body.id, ...sent.body };
}

/** The model key of the last model call: the granted secret, if it opened. */
const lastModelKey = () => fake.requests.at(-1)!.headers.authorization;

/** The session.completed delivery of a session, checked against the subscription's secret. */
async function deliveryOf(sessionId: string): Promise<WebhookEvent> {
  for (let count = 1; ; count++) {
    const requests = await receiver.waitForRequests(count, 30_000);
    const request = requests[count - 1]!;
    if (!request.body.includes(sessionId)) continue;
    return verifyWebhook({ body: request.body, headers: request.headers, secret: made.webhookSecret });
  }
}

async function answerByLink(api: ApiProcess, choice: string) {
  return call(`${api.url}${made.approvalPath}`, { headers: { accept: 'application/json' }, json: { choice } });
}

async function fire(url: string) {
  return call(url, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'Disk almost full' });
}

/** The trigger URL the API shows now, on the origin `api` listens at. */
async function shownTriggerUrl(api: ApiProcess): Promise<string> {
  const agent = await call<{ triggers: Array<{ url: string }> }>(`${api.url}/agent/${made.agent}`, { headers: auth });
  const shown = new URL(agent.body.triggers[0]!.url);
  return `${api.url}${shown.pathname}`;
}

/** A URL made on an earlier API process, on the origin of this one. */
const on = (api: ApiProcess, url: string) => `${api.url}${new URL(url).pathname}`;

describe('master key rotation', { timeout: 240_000 }, () => {
  test('under key A: a secret, a webhook subscription, an approval link and a webhook trigger URL', async () => {
    const api = await startService(KEY_A);
    for (const [key, value] of [
      ['OPENAI_COMPATIBLE_API_KEY', CANARY],
      ['UNUSED_TOKEN', 'another value'],
    ]) {
      expect((await call(`${api.url}/secret/${key}`, { method: 'PUT', headers: auth, json: { value } })).status).toBe(201);
    }
    const webhook = await call<{ secret: string }>(`${api.url}/webhook`, {
      headers: auth,
      json: { url: receiver.url, events: ['session.completed'] },
    });
    expect(webhook.status).toBe(201);
    made.webhookSecret = webhook.body.secret;
    made.agent = `rotating-${randomUUID().slice(0, 8)}`;
    const deployed = await call(`${api.url}/deploy`, {
      headers: auth,
      json: {
        name: made.agent,
        model: { providerId: 'openai-compatible', modelId: 'fake-model' },
        secretGrants: ['OPENAI_COMPATIBLE_API_KEY'],
        triggers: [{ kind: 'webhook' }],
      },
    });
    expect(deployed.status).toBe(201);
    made.triggerUrlA = await shownTriggerUrl(api);
    const approval = await call<{ id: string; links: { options: Array<{ url: string }> } }>(`${api.url}/approval`, {
      headers: auth,
      json: { question: 'Rotate the keys?', options: ['yes', 'no'], expiresInMs: 3_600_000 },
    });
    expect(approval.status).toBe(201);
    made.approvalId = approval.body.id;
    made.approvalPath = new URL(approval.body.links.options[0]!.url).pathname;

    expect(await sealedKeyIds()).toEqual({ secrets: { OPENAI_COMPATIBLE_API_KEY: ID_A, UNUSED_TOKEN: ID_A }, webhooks: [ID_A] });
    const { status } = await turn(api);
    expect(status).toBe('completed');
    expect(lastModelKey()).toBe(`Bearer ${CANARY}`);
  });

  test("with B alone before resealing, reseal refuses and a turn fails, both naming A's key id", async () => {
    const refused = await reseal(KEY_B, []);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`secrets: 2 under ${ID_A}`);
    expect(refused.stderr).toContain(`webhook secrets: 1 under ${ID_A}`);
    expect(refused.stderr).toContain('SERVICE_MASTER_KEY_PREVIOUS');
    expect(refused.stdout + refused.stderr).not.toContain(KEY_A);
    expect(await sealedKeyIds()).toEqual({ secrets: { OPENAI_COMPATIBLE_API_KEY: ID_A, UNUSED_TOKEN: ID_A }, webhooks: [ID_A] });

    const api = await startService(KEY_B);
    const failed = await turn(api);
    expect(failed.status).toBe('failed');
    expect(failed.error).toContain(ID_A);
    expect(failed.error).not.toContain(CANARY);
    // What A signed is unknown to B: the same 404 as any made-up link or URL.
    expect((await answerByLink(api, 'yes')).status).toBe(404);
    expect((await fire(on(api, made.triggerUrlA))).status).toBe(404);
  });

  test('with B and A as previous, all four work; writes use B; reseal moves every row to B, once', async () => {
    const api = await startService(KEY_B, [KEY_A]);
    const { sessionId, status } = await turn(api);
    expect(status).toBe('completed');
    expect(lastModelKey()).toBe(`Bearer ${CANARY}`);
    expect(await deliveryOf(sessionId)).toMatchObject({ type: 'session.completed', data: { sessionId } });

    const answered = await answerByLink(api, 'yes');
    expect(answered.status).toBe(200);
    expect(answered.body).toMatchObject({ id: made.approvalId, status: 'answered', choice: 'yes' });

    // The URL shown is B's now; the one handed out under A still fires.
    made.triggerUrlB = await shownTriggerUrl(api);
    expect(made.triggerUrlB).not.toBe(on(api, made.triggerUrlA));
    expect((await fire(on(api, made.triggerUrlA))).status).toBe(202);
    expect((await fire(made.triggerUrlB)).status).toBe(202);

    expect((await call(`${api.url}/secret/WRITTEN_UNDER_B`, { method: 'PUT', headers: auth, json: { value: 'new' } })).status).toBe(201);
    expect((await sealedKeyIds()).secrets.WRITTEN_UNDER_B).toBe(ID_B);

    // One row per batch: the two secrets under A take two transactions.
    const first = await reseal(KEY_B, [KEY_A], ['--batch-size=1']);
    expect(first.code).toBe(0);
    expect(first.stdout.split('\n')).toEqual([
      `current master key ${ID_B}; previous ${ID_A}`,
      `secrets: 2 resealed, 1 already under ${ID_B}`,
      `webhook secrets: 1 resealed, 0 already under ${ID_B}`,
      `A2A push credentials: 0 resealed, 0 already under ${ID_B}`,
      '',
    ]);
    expect(await sealedKeyIds()).toEqual({
      secrets: { OPENAI_COMPATIBLE_API_KEY: ID_B, UNUSED_TOKEN: ID_B, WRITTEN_UNDER_B: ID_B },
      webhooks: [ID_B],
    });
    const again = await reseal(KEY_B, [KEY_A]);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain(`secrets: 0 resealed, 3 already under ${ID_B}`);
    expect(again.stdout).toContain(`webhook secrets: 0 resealed, 1 already under ${ID_B}`);
  });

  test('with B alone after resealing, the secret, the webhook secret and the trigger URL shown work; what A signed does not', async () => {
    const api = await startService(KEY_B);
    const { sessionId, status } = await turn(api);
    expect(status).toBe('completed');
    expect(lastModelKey()).toBe(`Bearer ${CANARY}`);
    expect(await deliveryOf(sessionId)).toMatchObject({ type: 'session.completed', data: { sessionId } });
    expect((await fire(on(api, made.triggerUrlB))).status).toBe(202);

    // Dropping A ends what it signed: links still waiting must have expired first (docs/operating.md, "Rotating the master key").
    expect((await fire(on(api, made.triggerUrlA))).status).toBe(404);
    expect((await answerByLink(api, 'no')).status).toBe(404);
    const approval = await call<{ links: { options: Array<{ url: string }> } }>(`${api.url}/approval`, {
      headers: auth,
      json: { question: 'Signed under B?', options: ['yes', 'no'] },
    });
    const link = on(api, approval.body.links.options[0]!.url);
    const answered = await call(link, { headers: { accept: 'application/json' }, json: { choice: 'yes' } });
    expect(answered.status).toBe(200);
  });
});
