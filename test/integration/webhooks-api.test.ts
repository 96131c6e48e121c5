// The webhook subscription API: create (secret shown once), list, delete, the delivery log, and
// its errors: bad events, bad or refused URLs, scopes, another user's webhook (403), unknown (404).
import { describe, expect } from 'vitest';
import { apiTest } from '../helpers/harness/fixtures.ts';
import type { TestApi } from '../helpers/harness/api.ts';
import { WEBHOOK_EVENTS } from '../../contract/webhook-events.ts';
import { createTestUser, type TestUser } from '../helpers/harness/users.ts';
import { call } from '../helpers/client/request.ts';
import { createDeliveries, recordAttempt } from '../../store/webhook-deliveries.ts';
import { disableSubscription, openSubscriptionSecret } from '../../store/webhook-subscriptions.ts';
import { loadMasterKey } from '../../lib/master-key.ts';

const test = apiTest({ WEBHOOK_SUBSCRIPTIONS_PER_USER: '3' });

interface Created {
  id: string;
  url: string;
  events: string[];
  status: string;
  secret: string;
}

const subscribe = (api: TestApi, who: TestUser, json: unknown) => call<Created>(`${api.url}/webhook`, { headers: who.auth, json });
const errorPaths = (body: unknown) => (body as { errors?: Array<{ path: string }> }).errors?.map((error) => error.path);

describe('subscriptions', () => {
  test('create shows the secret once; the listing and the table never show it', async ({ api, user }) => {
    const created = await subscribe(api, user, {
      url: 'https://example.com/hooks?team=1',
      events: ['session.completed', 'session.failed'],
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^whk_/),
      url: 'https://example.com/hooks?team=1',
      events: ['session.completed', 'session.failed'],
      status: 'active',
      disabledReason: null,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
    });
    const { secret, ...shown } = created.body;
    const listed = await call<{ webhooks: unknown[] }>(`${api.url}/webhook`, { headers: user.auth });
    expect(listed.body.webhooks).toContainEqual(shown);
    expect(listed.text).not.toContain(secret);
    expect(listed.text).not.toContain(secret.slice(6));

    const { rows } = await api.db.query('SELECT * FROM webhook_subscriptions WHERE id = $1', [created.body.id]);
    expect(JSON.stringify(rows)).not.toContain(secret.slice(6));
    expect(openSubscriptionSecret([loadMasterKey(api.config)], created.body.id, rows[0])).toBe(secret);

    expect((await call(`${api.url}/webhook/${created.body.id}`, { method: 'DELETE', headers: user.auth })).status).toBe(204);
    expect((await call(`${api.url}/webhook/${created.body.id}`, { method: 'DELETE', headers: user.auth })).status).toBe(404);
  });

  test.for<[unknown, string]>([
    [{ url: 'https://example.com/', events: ['session.exploded'] }, '/events/0'],
    [{ url: 'https://example.com/', events: [] }, '/events'],
    [{ url: 'https://example.com/', events: ['session.completed', 'session.completed'] }, '/events'],
    [{ url: 'https://example.com/' }, '/events'],
    [{ url: 'ftp://example.com/', events: ['session.completed'] }, '/url'],
    [{ url: 'not a url', events: ['session.completed'] }, '/url'],
    [{ url: 'https://user:password@example.com/', events: ['session.completed'] }, '/url'],
    [{ url: `https://example.com/${'a'.repeat(2048)}`, events: ['session.completed'] }, '/url'],
    [{ url: 'https://example.com/', events: ['session.completed'], secret: 'mine' }, '/secret'],
  ])('%j is a 400 naming %s', async ([json, path], { api, user }) => {
    const response = await subscribe(api, user, json);
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(errorPaths(response.body)).toContain(path);
  });

  test.for([
    'http://127.0.0.1/',
    'http://[::1]:8080/',
    'http://169.254.169.254/latest/meta-data',
    'http://10.0.0.1/',
    'http://2130706433/',
  ])('a literal refused address (%s) is a 400', async (url, { api, user }) => {
    const response = await subscribe(api, user, { url, events: ['session.completed'] });
    expect(response.status).toBe(400);
    expect(response.text).toMatch(/OUTBOUND_ALLOW_CIDRS/);
  });

  test('every event of the list can be subscribed to', async ({ api }) => {
    const other = await createTestUser(api.db);
    const events = [...WEBHOOK_EVENTS];
    expect((await subscribe(api, other, { url: 'https://example.com/all', events })).status).toBe(201);
  });

  test('a user holds at most WEBHOOK_SUBSCRIPTIONS_PER_USER webhooks (409 beyond)', async ({ api }) => {
    const limited = await createTestUser(api.db);
    for (let i = 0; i < 3; i++)
      expect((await subscribe(api, limited, { url: `https://example.com/${i}`, events: ['session.failed'] })).status).toBe(201);
    const refused = await subscribe(api, limited, { url: 'https://example.com/4', events: ['session.failed'] });
    expect(refused.status).toBe(409);
  });

  test("another user's webhook is 403, an unknown one 404, and scopes are enforced", async ({ api, user }) => {
    const created = await subscribe(api, user, { url: 'https://example.com/private', events: ['session.completed'] });
    const other = await createTestUser(api.db);
    expect((await call(`${api.url}/webhook/${created.body.id}`, { method: 'DELETE', headers: other.auth })).status).toBe(403);
    expect((await call(`${api.url}/webhook/${created.body.id}/deliveries`, { headers: other.auth })).status).toBe(403);
    const listed = await call<{ webhooks: Array<{ id: string }> }>(`${api.url}/webhook`, { headers: other.auth });
    expect(listed.body.webhooks.map((webhook) => webhook.id)).not.toContain(created.body.id);
    expect((await call(`${api.url}/webhook/whk_unknown`, { method: 'DELETE', headers: user.auth })).status).toBe(404);
    expect((await call(`${api.url}/webhook/whk_unknown/deliveries`, { headers: user.auth })).status).toBe(404);

    const reader = await createTestUser(api.db, { scopes: ['read'] });
    expect((await subscribe(api, reader, { url: 'https://example.com/', events: ['session.completed'] })).status).toBe(403);
    expect((await call(`${api.url}/webhook`, { headers: reader.auth })).status).toBe(200);
    const writer = await createTestUser(api.db, { scopes: ['webhooks:write'] });
    expect((await call(`${api.url}/webhook`, { headers: writer.auth })).status).toBe(403);
    expect((await call(`${api.url}/webhook`)).status).toBe(401);
  });
});

describe('delivery log', () => {
  test('publishing an event again finds the deliveries made before, even once no subscription is active', async ({ api }) => {
    const owner = await createTestUser(api.db);
    expect(await createDeliveries(api.db, { userId: owner.userId, type: 'session.completed', eventKey: 'none', data: {} })).toEqual([]);
    const created = await subscribe(api, owner, { url: 'https://example.com/again', events: ['session.completed'] });
    const other = await subscribe(api, owner, { url: 'https://example.com/other', events: ['session.failed'] });
    const made = await createDeliveries(api.db, { userId: owner.userId, type: 'session.completed', eventKey: 'turn-1', data: {} });
    expect(made).toEqual([{ id: expect.stringMatching(/^dlv_/), subscriptionId: created.body.id }]);
    // A retried publish after the subscription was disabled (no active one left for this type) reads
    // what the first made rather than losing it; an event nobody subscribes to has no delivery.
    await disableSubscription(api.db, created.body.id, 'the receiver answered 410');
    expect(await createDeliveries(api.db, { userId: owner.userId, type: 'session.completed', eventKey: 'turn-1', data: {} })).toEqual(made);
    expect(await createDeliveries(api.db, { userId: owner.userId, type: 'session.completed', eventKey: 'turn-2', data: {} })).toEqual([]);
    const failed = await createDeliveries(api.db, { userId: owner.userId, type: 'session.failed', eventKey: 'turn-2', data: {} });
    expect(failed).toEqual([{ id: expect.stringMatching(/^dlv_/), subscriptionId: other.body.id }]);
  });

  test('lists deliveries newest first with their attempts, in pages', async ({ api }) => {
    const owner = await createTestUser(api.db);
    const created = await subscribe(api, owner, { url: 'https://example.com/log', events: ['session.completed'] });
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const [delivery] = await createDeliveries(api.db, {
        userId: owner.userId,
        type: 'session.completed',
        eventKey: `k${i}`,
        data: { i },
      });
      ids.push(delivery!.id);
    }
    // Publishing again with a known key finds the same delivery.
    expect(await createDeliveries(api.db, { userId: owner.userId, type: 'session.completed', eventKey: 'k0', data: {} })).toEqual([
      { id: ids[0], subscriptionId: created.body.id },
    ]);
    await recordAttempt(api.db, {
      deliveryId: ids[0]!,
      attempt: { attempt: 1, startedAt: new Date(), statusCode: null, error: 'OutboundTimeoutError: no answer', durationMs: 15_000 },
      status: 'pending',
    });
    await recordAttempt(api.db, {
      deliveryId: ids[0]!,
      attempt: { attempt: 2, startedAt: new Date(), statusCode: 204, error: null, durationMs: 12 },
      status: 'delivered',
    });

    type Page = {
      deliveries: Array<{ id: string; status: string; payload: { id: string; data: unknown }; attempts: unknown[] }>;
      next: string | null;
    };
    const first = await call<Page>(`${api.url}/webhook/${created.body.id}/deliveries?limit=2`, { headers: owner.auth });
    expect(first.status).toBe(200);
    expect(first.body.deliveries.map((delivery) => delivery.id)).toEqual([ids[2], ids[1]]);
    const second = await call<Page>(`${api.url}/webhook/${created.body.id}/deliveries?limit=2&before=${first.body.next}`, {
      headers: owner.auth,
    });
    expect(second.body.next).toBeNull();
    const [oldest] = second.body.deliveries;
    expect(oldest).toMatchObject({
      id: ids[0],
      status: 'delivered',
      type: 'session.completed',
      payload: { id: ids[0], type: 'session.completed', data: { i: 0 } },
    });
    expect(oldest!.attempts).toEqual([
      { attempt: 1, startedAt: expect.any(String), statusCode: null, error: 'OutboundTimeoutError: no answer', durationMs: 15_000 },
      { attempt: 2, startedAt: expect.any(String), statusCode: 204, error: null, durationMs: 12 },
    ]);
    expect(first.text + second.text).not.toContain(created.body.secret.slice(6));
  });
});
