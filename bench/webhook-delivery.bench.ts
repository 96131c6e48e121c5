// Webhook deliveries through the whole service to a local receiver (loopback, allowed by
// OUTBOUND_ALLOW_CIDRS): how many per second the delivery workflows sustain, beside the same signed
// POSTs sent straight through the outbound client (no Temporal, no PostgreSQL) and the same number
// of bare one-activity workflows (the floor: what the Temporal server itself sustains); and how long
// after a turn's `turn.completed` its `session.completed` delivery arrives, beside one such workflow
// run alone. Ratios to the floor are the figures to compare across runs.
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Client } from '@temporalio/client';
import { createOutboundClient } from '../lib/outbound.ts';
import { generateWebhookSecret, signWebhook } from '../lib/webhook-signature.ts';
import { createPool } from '../store/db.ts';
import { createDeliveries } from '../store/webhook-deliveries.ts';
import { deliveryWorkflow } from '../workflows/delivery.ts';
import { type DeliverySettings } from '../core/delivery-types.ts';
import type { SessionEvent } from '../contract/events.ts';
import type { Benchmark } from './benchmark.ts';
import { startAgentStack } from './agent-stack.ts';
import { startFloor } from './floor.ts';
import { expectStatus, timedRequest } from './http-json.ts';
import { summarize } from './measure.ts';
import { deliveryWorkflowId } from '../lib/workflow-safe/workflow-ids.ts';

const DELIVERIES = 300;
/** Workflow starts (and direct requests) in flight at once. */
const CONCURRENCY = 25;
const TURNS = 30;
const WARMUP_TURNS = 3;
const ARRIVAL_TIMEOUT_MS = 120_000;

const ratio = (a: number, b: number) => Math.round((a / b) * 100) / 100;
const perSecond = (count: number, ms: number) => Math.round((count / ms) * 1000 * 10) / 10;

interface Receiver {
  url: string;
  /** Arrival time (Date.now()) by delivery id, and by turn id for session events. */
  byDelivery: Map<string, number>;
  byTurn: Map<string, number>;
  waitFor(check: () => boolean, what: string): Promise<void>;
  close(): Promise<void>;
}

async function startReceiver(): Promise<Receiver> {
  const byDelivery = new Map<string, number>();
  const byTurn = new Map<string, number>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const at = Date.now();
      const event = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: string; data: { turnId?: string } };
      byDelivery.set(event.id, at);
      if (event.data.turnId) byTurn.set(event.data.turnId, at);
      res.writeHead(204).end();
    });
  });
  server.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    byDelivery,
    byTurn,
    async waitFor(check, what) {
      const deadline = Date.now() + ARRIVAL_TIMEOUT_MS;
      while (!check()) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Runs `task` for every item with at most `limit` in flight. */
async function pool<T>(items: readonly T[], limit: number, task: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < items.length) await task(items[next++]!);
    }),
  );
}

const webhookDelivery: Benchmark = {
  name: 'webhook-delivery',
  description: `${DELIVERIES} deliveries to a local receiver beside direct signed POSTs; turn.completed → delivery arrival over ${TURNS} turns beside a one-activity workflow`,
  needs: ['postgres', 'temporal'],
  async run({ infra, log }) {
    const stack = await startAgentStack(infra, log, {
      env: { OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8' },
      fake: { defaultScript: { text: 'Done.' } },
    });
    const receiver = await startReceiver();
    const db = createPool(infra.databaseUrl(), 4);
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    let floor: Awaited<ReturnType<typeof startFloor>> | undefined;
    try {
      const created = await timedRequest<{ id: string }>(agent, `${stack.url}/webhook`, {
        method: 'POST',
        headers: stack.headers,
        body: JSON.stringify({ url: receiver.url, events: ['session.completed'] }),
        timeoutMs: 30_000,
      });
      const subscriptionId = expectStatus(created, 201, 'POST /webhook').id;
      const { rows } = await db.query<{ user_id: string }>('SELECT user_id FROM webhook_subscriptions WHERE id = $1', [subscriptionId]);
      const userId = rows[0]!.user_id;
      const settings: DeliverySettings = { ...stack.config.webhooks };
      const client: Client = stack.temporal.client;

      log(`recording ${DELIVERIES} deliveries`);
      const recordStarted = process.hrtime.bigint();
      const deliveries: Array<{ id: string; subscriptionId: string }> = [];
      for (let i = 0; i < DELIVERIES; i++) {
        deliveries.push(...(await createDeliveries(db, { userId, type: 'session.completed', eventKey: randomUUID(), data: { n: i } })));
      }
      const recordMs = Number(process.hrtime.bigint() - recordStarted) / 1e6;

      log(`delivering them through workflows (${CONCURRENCY} starts in flight)`);
      const started = Date.now();
      await pool(deliveries, CONCURRENCY, (delivery) =>
        client.workflow.start(deliveryWorkflow, {
          taskQueue: stack.config.taskQueue,
          workflowId: deliveryWorkflowId(delivery.id),
          args: [{ deliveryId: delivery.id, subscriptionId, type: 'session.completed', settings }],
        }),
      );
      await receiver.waitFor(() => deliveries.every((delivery) => receiver.byDelivery.has(delivery.id)), 'every delivery');
      const workflowMs = Math.max(...deliveries.map((delivery) => receiver.byDelivery.get(delivery.id)!)) - started;

      log('sending the same number of signed POSTs directly');
      const outbound = createOutboundClient({ allowCidrs: ['127.0.0.0/8'] });
      const secret = generateWebhookSecret();
      const direct = Array.from({ length: DELIVERIES }, (_, n) => `direct_${n}`);
      const directStarted = Date.now();
      await pool(direct, CONCURRENCY, async (id) => {
        const body = JSON.stringify({ id, type: 'session.completed', createdAt: new Date().toISOString(), data: {} });
        const headers = { ...signWebhook(secret, id, Math.floor(Date.now() / 1000), body), 'content-type': 'application/json' };
        const answer = await outbound.request(receiver.url, { method: 'POST', headers, body, timeoutMs: 30_000 });
        if (answer.status !== 204) throw new Error(`the receiver answered ${answer.status}`);
      });
      const directMs = Date.now() - directStarted;

      log(`${TURNS} turns, each followed by its session.completed delivery`);
      const agentName = await stack.deployAgent();
      const sessionId = await stack.newSession(agentName);
      const turnIds: string[] = [];
      for (let i = 0; i < WARMUP_TURNS + TURNS; i++) {
        const { body } = await stack.send(agent, sessionId, `message ${i}`);
        if (i >= WARMUP_TURNS) turnIds.push(body.messageId);
        // One turn at a time, its delivery included, so the delays do not queue behind each other.
        await receiver.waitFor(() => receiver.byTurn.has(body.messageId), `the delivery of turn ${body.messageId}`);
      }
      const page = await timedRequest<{ events: SessionEvent[] }>(agent, `${stack.url}/session/${sessionId}/events?limit=1000`, {
        headers: stack.headers,
        timeoutMs: 30_000,
      });
      const completedAt = new Map(
        expectStatus(page, 200, 'GET /session/<id>/events')
          .events.filter((event) => event.type === 'turn.completed')
          .map((event) => [(event as { turnId: string }).turnId, Date.parse(event.at)]),
      );
      const delay = summarize(turnIds.map((turnId) => receiver.byTurn.get(turnId)! - completedAt.get(turnId)!));

      log(`floor: ${TURNS} one-activity workflows one at a time, then ${DELIVERIES} at once`);
      floor = await startFloor(stack.temporal);
      const runFloor = floor.run;
      const floorSamples: number[] = [];
      for (let i = 0; i < WARMUP_TURNS + TURNS; i++) {
        const floorStarted = process.hrtime.bigint();
        await runFloor();
        if (i >= WARMUP_TURNS) floorSamples.push(Number(process.hrtime.bigint() - floorStarted) / 1e6);
      }
      const floorLatency = summarize(floorSamples);
      const concurrentStarted = Date.now();
      await Promise.all(Array.from({ length: DELIVERIES }, () => runFloor()));
      const floorMs = Date.now() - concurrentStarted;

      return {
        method:
          `throughput: ${DELIVERIES} deliveries recorded first (not timed), then their workflows started ${CONCURRENCY} at a time; ` +
          'timed from the first start to the last arrival. Delay: turn.completed `at` (PostgreSQL now(), ms) to arrival at the receiver, ' +
          'one turn at a time; API, worker, receiver and floor worker share this process',
        throughput: {
          deliveries: DELIVERIES,
          concurrency: CONCURRENCY,
          recordMs: Math.round(recordMs),
          workflowMs,
          deliveriesPerSecond: perSecond(DELIVERIES, workflowMs),
          floorMs,
          floorWorkflowsPerSecond: perSecond(DELIVERIES, floorMs),
          // Over 1: deliveries complete faster than bare one-activity workflows on this Temporal server.
          ratioToFloor: ratio(floorMs, workflowMs),
          directMs,
          directPerSecond: perSecond(DELIVERIES, directMs),
        },
        turnCompletedToArrival: { turns: TURNS, warmup: WARMUP_TURNS, ...delay },
        floor: { workflow: 'floorWorkflow: one no-op activity, started and awaited', ...floorLatency },
        ratioP50: ratio(delay.p50Ms, floorLatency.p50Ms),
      };
    } finally {
      agent.destroy();
      await floor?.stop().catch((error: unknown) => log(`stopping the floor worker failed: ${(error as Error).message}`));
      await receiver.close();
      await db.end();
      await stack.close();
    }
  },
};

export default webhookDelivery;
