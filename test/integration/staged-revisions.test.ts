// Revisions that are not live yet: a staged deploy, sessions pinned to it, promote and rollback, and a
// canary's traffic share of new sessions. Sessions keep the revision they started on through every change;
// each change is listed with the key that made it and delivered as the `agent.changed` webhook event.
import { describe, expect, onTestFinished } from 'vitest';
import { agentTest } from '../helpers/harness/fixtures.ts';
import type { AgentEnv } from '../helpers/harness/agent-env.ts';
import { call } from '../helpers/client/request.ts';
import { startWebhookReceiver } from '../helpers/fakes/webhook-receiver.ts';
import { createDeliveries } from '../../store/webhook-deliveries.ts';
import { startUnstartedDeliveries } from '../../api/webhooks/publish.ts';
import { createLogger } from '../../lib/logger.ts';

// Loopback webhook receivers are allowed here.
const test = agentTest({ OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8' });

const FAKE_MODEL = { providerId: 'openai-compatible', modelId: 'fake-model' };

interface Deployed {
  ok: boolean;
  agentId: string;
  revision: number;
  liveRevision: number;
}

interface Change {
  kind: string;
  revision: number | null;
  liveBefore: number | null;
  liveAfter: number;
  traffic: Record<string, number>;
  keyId: string | null;
}

const deploy = (env: AgentEnv, name: string, instructions: string, stage = false) =>
  call<Deployed>(`${env.api.url}/deploy${stage ? '?stage=1' : ''}`, {
    headers: env.user.auth,
    json: { name, model: FAKE_MODEL, instructions },
  });

const newSession = async (env: AgentEnv, name: string, body: Record<string, unknown> = {}) =>
  call<{ id: string; revision: number }>(`${env.api.url}/agent/${name}/session`, { headers: env.user.auth, json: body });

const post = <T>(env: AgentEnv, path: string, json?: unknown) =>
  call<T>(`${env.api.url}${path}`, { method: 'POST', headers: env.user.auth, ...(json === undefined ? {} : { json }) });

/** The system prompt the model gets in a turn of this session: which revision's instructions run it. */
async function instructionsOf(env: AgentEnv, sessionId: string): Promise<string | undefined> {
  const before = env.fake.requests.length;
  env.fake.enqueue({ text: 'ok' });
  const sent = await call(`${env.api.url}/session/${sessionId}`, {
    headers: env.user.auth,
    json: { parts: [{ type: 'text', text: 'hi' }] },
  });
  expect(sent.status, sent.text).toBe(200);
  return env.fake.requests[before]!.body.messages.find((message) => message.role === 'system')?.content as string | undefined;
}

/** A fresh agent whose revision 1 is live and revision 2 staged. */
async function stagedAgent(env: AgentEnv): Promise<string> {
  const name = `agent-${crypto.randomUUID().slice(0, 8)}`;
  expect((await deploy(env, name, 'First.')).status).toBe(201);
  const staged = await deploy(env, name, 'Second.', true);
  expect(staged.status, staged.text).toBe(200);
  expect(staged.body).toMatchObject({ ok: true, revision: 2, liveRevision: 1 });
  return name;
}

describe('a staged revision', () => {
  test('serves no new session until promoted; a session can be pinned to it; a new name cannot be staged', async ({ env }) => {
    const name = await stagedAgent(env);
    const agent = await call<{ revision: number; latestRevision: number; traffic: object }>(`${env.api.url}/agent/${name}`, {
      headers: env.user.auth,
    });
    expect(agent.body).toMatchObject({ revision: 1, latestRevision: 2, traffic: {} });

    const plain = await newSession(env, name);
    expect(plain.body.revision).toBe(1);
    expect(await instructionsOf(env, plain.body.id)).toBe('First.');
    const pinned = await newSession(env, name, { revision: 2 });
    expect(pinned.status).toBe(201);
    expect(pinned.body.revision).toBe(2);
    expect(await instructionsOf(env, pinned.body.id)).toBe('Second.');
    expect((await newSession(env, name, { revision: 3 })).status).toBe(404);
    expect((await newSession(env, name, { revision: 0 })).status).toBe(400);

    const listed = await call<{ revisions: Array<{ revision: number; state: string; trafficPercent: number }>; live: number }>(
      `${env.api.url}/agent/${name}/revisions`,
      { headers: env.user.auth },
    );
    expect(listed.body.live).toBe(1);
    expect(listed.body.revisions.map(({ revision, state, trafficPercent }) => ({ revision, state, trafficPercent }))).toEqual([
      { revision: 2, state: 'staged', trafficPercent: 0 },
      { revision: 1, state: 'live', trafficPercent: 100 },
    ]);

    const fresh = await deploy(env, `agent-${crypto.randomUUID().slice(0, 8)}`, 'Never live.', true);
    expect(fresh.status).toBe(409);
    expect(fresh.text).toContain('no live revision');
  });

  test('promote makes it live for new sessions only; rollback returns, and a second rollback undoes the first', async ({ env }) => {
    const name = await stagedAgent(env);
    const before = await newSession(env, name);

    const promoted = await post<{ live: number; changed: boolean; change: Change }>(env, `/agent/${name}/promote`, { revision: 2 });
    expect(promoted.status, promoted.text).toBe(200);
    expect(promoted.body).toMatchObject({ live: 2, changed: true, change: { kind: 'promoted', revision: 2, liveBefore: 1, liveAfter: 2 } });
    expect(promoted.body.change.keyId).toBe(env.user.keyId);
    // The same promote again changes nothing (a retry is safe); an unknown revision is 404.
    expect((await post(env, `/agent/${name}/promote`, { revision: 2 })).body).toEqual({ live: 2, changed: false, change: null });
    expect((await post(env, `/agent/${name}/promote`, { revision: 9 })).status).toBe(404);

    // The session begun before stays on its revision; a new one starts on the promoted one.
    expect(await instructionsOf(env, before.body.id)).toBe('First.');
    const after = await newSession(env, name);
    expect(after.body.revision).toBe(2);
    expect(await instructionsOf(env, after.body.id)).toBe('Second.');

    const rolledBack = await post<{ live: number; change: Change }>(env, `/agent/${name}/rollback`);
    expect(rolledBack.body).toMatchObject({ live: 1, change: { kind: 'rolled_back', revision: 1, liveBefore: 2, liveAfter: 1 } });
    expect((await newSession(env, name)).body.revision).toBe(1);
    expect(await instructionsOf(env, after.body.id)).toBe('Second.');
    const undone = await post<{ live: number }>(env, `/agent/${name}/rollback`);
    expect(undone.body.live).toBe(2);

    const listed = await call<{ revisions: Array<{ revision: number; state: string }>; changes: Change[] }>(
      `${env.api.url}/agent/${name}/revisions`,
      { headers: env.user.auth },
    );
    expect(listed.body.revisions.map(({ revision, state }) => [revision, state])).toEqual([
      [2, 'live'],
      [1, 'retired'],
    ]);
    expect(listed.body.changes.map(({ kind, revision, liveBefore, liveAfter }) => [kind, revision, liveBefore, liveAfter])).toEqual([
      ['rolled_back', 2, 1, 2],
      ['rolled_back', 1, 2, 1],
      ['promoted', 2, 1, 2],
      ['staged', 2, 1, 1],
      ['deployed', 1, null, 1],
    ]);
    expect(listed.body.changes.every((change) => change.keyId === env.user.keyId)).toBe(true);
  });

  test('an agent with one revision has nothing to roll back to', async ({ env }) => {
    const { name } = await env.deploy();
    const refused = await post<{ detail: string }>(env, `/agent/${name}/rollback`);
    expect(refused.status).toBe(409);
    expect(refused.body.detail).toContain('nothing to roll back to');
  });
});

describe('a canary', () => {
  test('a 50% share gets about half of 200 new sessions, which keep their revision when it ends', async ({ env }) => {
    const name = await stagedAgent(env);
    const shared = await post<{ live: number; traffic: Record<string, number>; change: Change }>(env, `/agent/${name}/traffic`, {
      '2': 50,
    });
    expect(shared.status, shared.text).toBe(200);
    expect(shared.body).toMatchObject({ live: 1, traffic: { '2': 50 }, change: { kind: 'traffic', revision: null, liveAfter: 1 } });

    const revisions: number[] = [];
    const sessions: Array<{ id: string; revision: number }> = [];
    for (let batch = 0; batch < 20; batch += 1) {
      const made = await Promise.all(Array.from({ length: 10 }, () => newSession(env, name)));
      for (const response of made) {
        revisions.push(response.body.revision);
        sessions.push(response.body);
      }
    }
    const onCanary = revisions.filter((revision) => revision === 2).length;
    expect(revisions.filter((revision) => revision !== 1 && revision !== 2)).toEqual([]);
    // Binomial(200, 0.5): a standard deviation of about 7; 5 of them either way.
    expect(onCanary).toBeGreaterThanOrEqual(65);
    expect(onCanary).toBeLessThanOrEqual(135);
    const listed = await call<{ revisions: Array<{ revision: number; state: string; trafficPercent: number }> }>(
      `${env.api.url}/agent/${name}/revisions`,
      { headers: env.user.auth },
    );
    expect(listed.body.revisions.map(({ revision, state, trafficPercent }) => [revision, state, trafficPercent])).toEqual([
      [2, 'canary', 50],
      [1, 'live', 50],
    ]);

    // Ended: new sessions are all live ones; a session the canary took stays on its revision.
    expect((await post(env, `/agent/${name}/traffic`, {})).status).toBe(200);
    const later = await Promise.all(Array.from({ length: 10 }, () => newSession(env, name)));
    expect(later.map((response) => response.body.revision)).toEqual(Array.from({ length: 10 }, () => 1));
    const canaried = sessions.find((session) => session.revision === 2)!;
    expect(await instructionsOf(env, canaried.id)).toBe('Second.');
  });

  test('shares that cannot be: the live revision, an unknown one, more than 100%, not a number', async ({ env }) => {
    const name = await stagedAgent(env);
    expect((await deploy(env, name, 'Third.', true)).body.revision).toBe(3);
    const refused = async (shares: Record<string, unknown>, status: number, detail: RegExp) => {
      const response = await post<{ detail: string }>(env, `/agent/${name}/traffic`, shares);
      expect(response.status, response.text).toBe(status);
      expect(response.body.detail).toMatch(detail);
    };
    await refused({ '1': 10 }, 400, /is live/);
    await refused({ '9': 10 }, 404, /no revision 9/);
    await refused({ '2': 60, '3': 50 }, 400, /110%/);
    await refused({ two: 10 }, 400, /not a revision number/);
    await refused({ '2': 101 }, 400, /.+/);
    // A promote ends the shares.
    expect((await post(env, `/agent/${name}/traffic`, { '2': 10, '3': 20 })).status).toBe(200);
    expect((await post(env, `/agent/${name}/promote`, { revision: 3 })).status).toBe(200);
    const agent = await call<{ revision: number; traffic: object }>(`${env.api.url}/agent/${name}`, { headers: env.user.auth });
    expect(agent.body).toMatchObject({ revision: 3, traffic: {} });
  });
});

test('every change is an agent.changed webhook event, with the key that made it', async ({ env }) => {
  const hooks = await startWebhookReceiver();
  onTestFinished(() => hooks.close());
  const subscribed = await post<{ id: string }>(env, '/webhook', { url: hooks.url, events: ['agent.changed'] });
  expect(subscribed.status, subscribed.text).toBe(201);
  const name = await stagedAgent(env);
  await post(env, `/agent/${name}/traffic`, { '2': 25 });
  await post(env, `/agent/${name}/promote`, { revision: 2 });
  await post(env, `/agent/${name}/rollback`);

  const received = await hooks.waitForRequests(5, 30_000);
  const events = received
    .map((request) => JSON.parse(request.body) as { type: string; data: Record<string, unknown> & { changeId: string } })
    .sort((a, b) => Number(a.data.changeId) - Number(b.data.changeId));
  expect(events.every((event) => event.type === 'agent.changed' && event.data.agentName === name)).toBe(true);
  expect(events.map(({ data }) => [data.change, data.revision, data.previousLiveRevision, data.liveRevision, data.traffic])).toEqual([
    ['deployed', 1, null, 1, {}],
    ['staged', 2, 1, 1, {}],
    ['traffic', null, 1, 1, { '2': 25 }],
    ['promoted', 2, 1, 2, {}],
    ['rolled_back', 1, 2, 1, {}],
  ]);
  expect(events.every(({ data }) => data.keyId === env.user.keyId)).toBe(true);
});

test('an event whose deliveries were recorded but never started (the API died between) is delivered by housekeeping', async ({ env }) => {
  const hooks = await startWebhookReceiver();
  onTestFinished(() => hooks.close());
  const subscribed = await post<{ id: string }>(env, '/webhook', { url: hooks.url, events: ['agent.changed'] });
  expect(subscribed.status).toBe(201);
  // What publishFromApi records before it starts the workflows; here nothing starts them.
  // One delivery per subscription of the user: an earlier test's subscription gets one too. This one is ours.
  const recorded = (
    await createDeliveries(env.api.db, {
      userId: env.user.userId,
      type: 'agent.changed',
      eventKey: `agent.changed:test-${crypto.randomUUID()}`,
      data: { agentName: 'left-behind' },
    })
  ).find((delivery) => delivery.subscriptionId === subscribed.body.id);
  const deps = {
    db: env.api.db,
    config: env.api.config,
    temporal: { client: env.worker.client },
    logger: createLogger({ level: 'silent' }),
  };
  // The pass is global: another file's workflow stopped between recording and starting its deliveries leaves
  // some too (that is what the pass is for). So each check is of this delivery only.
  const startedAt = async () =>
    (await env.api.db.query<{ started_at: Date | null }>('SELECT started_at FROM webhook_deliveries WHERE id = $1', [recorded!.id]))
      .rows[0]!.started_at;
  // Too recent: its workflow may be about to start.
  await startUnstartedDeliveries(deps);
  expect(await startedAt()).toBeNull();
  await env.api.db.query(`UPDATE webhook_deliveries SET created_at = now() - interval '5 minutes' WHERE id = $1`, [recorded!.id]);
  expect(await startUnstartedDeliveries(deps)).toBeGreaterThanOrEqual(1);
  expect(await startedAt()).not.toBeNull();
  const [delivered] = await hooks.waitForRequests(1, 30_000);
  expect(JSON.parse(delivered!.body)).toMatchObject({ id: recorded!.id, type: 'agent.changed', data: { agentName: 'left-behind' } });
  // Started once: a second pass finds it marked, and it is delivered once.
  await startUnstartedDeliveries(deps);
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  expect(hooks.requests.filter((request) => JSON.parse(request.body).id === recorded!.id)).toHaveLength(1);
});
