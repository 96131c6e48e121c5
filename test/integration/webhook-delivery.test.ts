// Deliveries as Temporal workflows against real receivers: one id and a fresh valid signature per
// attempt, retries on the schedule, 410 disables the webhook, redirects are not followed, a worker
// restart during the wait loses nothing, and a loopback receiver gets nothing unless allowed.
// Deliveries are recorded and started here as the publishing workflow would, with short schedules.
import { testConfig } from '../helpers/harness/env.ts';
import { loadMasterKeys } from '../../lib/master-key.ts';
import { temporalDataConverter } from '../../lib/temporal-data-converter.ts';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest';
import { Client, Connection } from '@temporalio/client';
import { Webhook } from 'standardwebhooks';
import { startAgentEnv, type AgentEnv } from '../helpers/harness/agent-env.ts';
import { startTestWorker, type TestWorker } from '../helpers/harness/worker.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/fakes/webhook-receiver.ts';
import { call } from '../helpers/client/request.ts';
import { createDeliveries } from '../../store/webhook-deliveries.ts';
import { verifyWebhook } from '../../lib/webhook-signature.ts';
import { deliveryWorkflow } from '../../workflows/delivery.ts';
import { type DeliveryResult, type DeliverySettings } from '../../core/delivery-types.ts';
import { deliveryWorkflowId } from '../../lib/workflow-safe/workflow-ids.ts';

let env: AgentEnv;
// A client of its own (the worker's client closes when the worker restarts), with the service's payload codec.
let connection: Connection;
let client: Client;
const receivers: WebhookReceiver[] = [];
beforeAll(async () => {
  env = await startAgentEnv({ OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8' });
  connection = await Connection.connect({ address: inject('temporalAddress') });
  const config = testConfig();
  client = new Client({ connection, namespace: 'default', dataConverter: temporalDataConverter(config, loadMasterKeys(config)) });
});
afterAll(async () => {
  await Promise.all(receivers.map((receiver) => receiver.close()));
  await connection?.close();
  await env?.close();
});

async function receiver(): Promise<WebhookReceiver> {
  const started = await startWebhookReceiver();
  receivers.push(started);
  return started;
}

async function subscribe(url: string): Promise<{ id: string; secret: string }> {
  const created = await call<{ id: string; secret: string }>(`${env.api.url}/webhook`, {
    headers: env.user.auth,
    json: { url, events: ['session.completed'] },
  });
  if (created.status !== 201) throw new Error(`subscribe failed: ${created.text}`);
  return created.body;
}

/** Records one session.completed delivery for the env's user and starts its workflow on `worker`'s queue. */
async function deliver(
  settings: DeliverySettings,
  worker: { taskQueue: string } = env.worker,
): Promise<{ id: string; done: Promise<DeliveryResult> }> {
  const [delivery, ...others] = await createDeliveries(env.api.db, {
    userId: env.user.userId,
    type: 'session.completed',
    eventKey: randomUUID(),
    data: { sessionId: 'ses_test', turnId: 'msg_test', status: 'completed' },
  });
  if (!delivery || others.length) throw new Error('expected exactly one active subscription');
  const handle = await client.workflow.start(deliveryWorkflow, {
    taskQueue: worker.taskQueue,
    workflowId: deliveryWorkflowId(delivery.id),
    args: [{ deliveryId: delivery.id, subscriptionId: delivery.subscriptionId, type: 'session.completed', settings }],
  });
  return { id: delivery.id, done: handle.result() };
}

interface LoggedDelivery {
  id: string;
  status: string;
  attempts: Array<{ attempt: number; startedAt: string; statusCode: number | null; error: string | null; durationMs: number }>;
}

async function deliveryLog(subscriptionId: string): Promise<LoggedDelivery[]> {
  const response = await call<{ deliveries: LoggedDelivery[] }>(`${env.api.url}/webhook/${subscriptionId}/deliveries`, {
    headers: env.user.auth,
  });
  return response.body.deliveries;
}

async function unsubscribe(id: string): Promise<void> {
  await call(`${env.api.url}/webhook/${id}`, { method: 'DELETE', headers: env.user.auth });
}

const fast: DeliverySettings = { retryScheduleMs: [200, 200, 200], attemptTimeoutMs: 2_000 };

describe('delivery', () => {
  test('500, 500, 200: three attempts with one id and three different valid signatures', async () => {
    const hooks = await receiver();
    const webhook = await subscribe(hooks.url);
    try {
      hooks.enqueue(500, 500, 200);
      const { id, done } = await deliver(fast);
      expect(await done).toEqual({ status: 'delivered', attempts: 3 });
      const requests = hooks.requests;
      expect(requests).toHaveLength(3);
      expect(requests.map((request) => request.method)).toEqual(['POST', 'POST', 'POST']);
      expect(new Set(requests.map((request) => request.headers['webhook-id']))).toEqual(new Set([id]));
      expect(new Set(requests.map((request) => request.headers['x-service-id']))).toEqual(new Set([id]));
      expect(new Set(requests.map((request) => request.body)).size).toBe(1);
      expect(new Set(requests.map((request) => request.headers['webhook-signature'])).size).toBe(3);
      const reference = new Webhook(webhook.secret);
      for (const request of requests) {
        const headers = request.headers as Record<string, string>;
        expect(headers['content-type']).toBe('application/json');
        expect(headers['x-service-signature']).toBe(headers['webhook-signature']);
        expect(headers['x-service-timestamp']).toBe(headers['webhook-timestamp']);
        // Verified independently, the way a receiver using the reference library would.
        expect(reference.verify(request.body, headers)).toMatchObject({ id, type: 'session.completed' });
        expect(verifyWebhook({ body: request.body, headers, secret: webhook.secret })).toEqual({
          id,
          type: 'session.completed',
          createdAt: expect.any(String),
          data: { sessionId: 'ses_test', turnId: 'msg_test', status: 'completed' },
        });
      }
      const [logged] = await deliveryLog(webhook.id);
      expect(logged).toMatchObject({ id, status: 'delivered' });
      expect(logged!.attempts.map((attempt) => attempt.statusCode)).toEqual([500, 500, 200]);
      expect(logged!.attempts.map((attempt) => attempt.attempt)).toEqual([1, 2, 3]);
    } finally {
      await unsubscribe(webhook.id);
    }
  });

  test('a delivery that never gets a 2xx fails after the last attempt of the schedule', async () => {
    const hooks = await receiver();
    const webhook = await subscribe(hooks.url);
    try {
      hooks.enqueue(503, 503, 503);
      const { id, done } = await deliver({ retryScheduleMs: [100, 100], attemptTimeoutMs: 2_000 });
      await expect(done).rejects.toThrow();
      expect(hooks.requests).toHaveLength(3);
      const [logged] = await deliveryLog(webhook.id);
      expect(logged).toMatchObject({ id, status: 'failed' });
      expect(logged!.attempts).toHaveLength(3);
    } finally {
      await unsubscribe(webhook.id);
    }
  });

  test('410 disables the webhook and stops; later deliveries are not sent', async () => {
    const hooks = await receiver();
    const webhook = await subscribe(hooks.url);
    try {
      hooks.enqueue(410);
      const first = await deliver(fast);
      await expect(first.done).rejects.toThrow();
      expect(hooks.requests).toHaveLength(1);
      const listed = await call<{ webhooks: Array<{ id: string; status: string; disabledReason: string }> }>(`${env.api.url}/webhook`, {
        headers: env.user.auth,
      });
      expect(listed.body.webhooks.find((entry) => entry.id === webhook.id)).toMatchObject({
        status: 'disabled',
        disabledReason: expect.stringMatching(/410/),
      });
      const [logged] = await deliveryLog(webhook.id);
      expect(logged).toMatchObject({ id: first.id, status: 'failed', attempts: [{ statusCode: 410 }] });
      // A disabled webhook gets no new deliveries.
      expect(
        await createDeliveries(env.api.db, { userId: env.user.userId, type: 'session.completed', eventKey: randomUUID(), data: {} }),
      ).toEqual([]);
    } finally {
      await unsubscribe(webhook.id);
    }
  });

  test('a 302 is not followed: the receiver at the redirect target gets nothing', async () => {
    const hooks = await receiver();
    const target = await receiver();
    const webhook = await subscribe(hooks.url);
    try {
      hooks.enqueue({ status: 302, headers: { location: target.url } }, 200);
      const { done } = await deliver(fast);
      expect(await done).toEqual({ status: 'delivered', attempts: 2 });
      expect(target.requests).toEqual([]);
      const [logged] = await deliveryLog(webhook.id);
      expect(logged!.attempts.map((attempt) => attempt.statusCode)).toEqual([302, 200]);
    } finally {
      await unsubscribe(webhook.id);
    }
  });

  test('a worker restart while a delivery waits for its next attempt loses nothing', { timeout: 60_000 }, async () => {
    const hooks = await receiver();
    const webhook = await subscribe(hooks.url);
    try {
      hooks.enqueue(500);
      const { id, done } = await deliver({ retryScheduleMs: [4_000], attemptTimeoutMs: 2_000 });
      await hooks.waitForRequests(1);
      // The first attempt is recorded, so the workflow is in its durable sleep.
      await expect.poll(async () => (await deliveryLog(webhook.id))[0]?.attempts.length, { timeout: 5_000 }).toBe(1);
      await env.restartWorker();
      expect(await done).toEqual({ status: 'delivered', attempts: 2 });
      expect(hooks.requests).toHaveLength(2);
      expect(hooks.requests[1]!.at - hooks.requests[0]!.at).toBeGreaterThanOrEqual(4_000);
      expect(hooks.requests.map((request) => request.headers['webhook-id'])).toEqual([id, id]);
      const [logged] = await deliveryLog(webhook.id);
      expect(logged).toMatchObject({ id, status: 'delivered' });
    } finally {
      await unsubscribe(webhook.id);
    }
  });

  test('deleting the webhook stops its pending deliveries', async () => {
    const hooks = await receiver();
    const webhook = await subscribe(hooks.url);
    hooks.enqueue(500);
    const { done } = await deliver({ retryScheduleMs: [1_000], attemptTimeoutMs: 2_000 });
    await hooks.waitForRequests(1);
    await unsubscribe(webhook.id);
    expect(await done).toEqual({ status: 'cancelled', attempts: 1 });
    expect(hooks.requests).toHaveLength(1);
  });
});

describe('without OUTBOUND_ALLOW_CIDRS', () => {
  let strict: TestWorker;
  beforeAll(async () => {
    strict = await startTestWorker({ TASK_QUEUE: `test-${randomUUID()}` });
  });
  afterAll(async () => strict?.stop());

  test('a receiver on loopback, named by a host name, receives nothing; the attempts record why, naming no address', async () => {
    const hooks = await receiver();
    // The API checks literal addresses only; a name is checked when each attempt connects.
    const webhook = await subscribe(hooks.url.replace('127.0.0.1', 'localhost'));
    try {
      const { done } = await deliver({ retryScheduleMs: [100], attemptTimeoutMs: 2_000 }, strict);
      await expect(done).rejects.toThrow();
      expect(hooks.requests).toEqual([]);
      const [logged] = await deliveryLog(webhook.id);
      expect(logged!.status).toBe('failed');
      expect(logged!.attempts).toHaveLength(2);
      for (const attempt of logged!.attempts) {
        expect(attempt.statusCode).toBeNull();
        expect(attempt.error).toMatch(
          /^OutboundAddressRefusedError: Refused: the receiver's address is loopback, not public .*OUTBOUND_ALLOW_CIDRS/,
        );
      }
      // What a `read` key sees names no resolved address: the name resolved to loopback, and that is all it says.
      const reader = await call<{ key: string }>(`${env.api.url}/key`, { headers: env.user.auth, json: { scopes: ['read'] } });
      const seen = await call(`${env.api.url}/webhook/${webhook.id}/deliveries`, {
        headers: { authorization: `Bearer ${reader.body.key}` },
      });
      expect(seen.status).toBe(200);
      expect(seen.text).toContain('OutboundAddressRefusedError');
      expect(seen.text).not.toMatch(/127\.0\.0\.1|::1|\b\d{1,3}(\.\d{1,3}){3}\b/);
    } finally {
      await unsubscribe(webhook.id);
    }
  });
});
