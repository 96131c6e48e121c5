// Waits measured in days, run in seconds. Temporal's time-skipping test server cannot be had on this
// machine (docs/development.md, "Versioning workflows"), so every long wait is a real timer of the real workflow
// whose length comes from configuration, carried in the workflow's input: with the production
// defaults the timers in history are seven days (an approval) or about a day of retries (a delivery);
// with the same defaults compressed (one day = DAY_MS) the same timers fire, and what follows the
// firing runs as in production. Durations are read from history, never measured on a clock.
import { afterAll, beforeAll, describe, expect, vi } from 'vitest';
import type { Client } from '@temporalio/client';
import proto from '@temporalio/proto';
import { startAgentEnv } from '../helpers/harness/agent-env.ts';
import { agentTest } from '../helpers/harness/fixtures.ts';
import { askInTurn } from '../helpers/harness/ask-in-turn.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/fakes/webhook-receiver.ts';
import { testConfig } from '../helpers/harness/env.ts';
import { call } from '../helpers/client/request.ts';
import { approvalWorkflowId, deliveryWorkflowId, sessionWorkflowId } from '../../lib/workflow-safe/workflow-ids.ts';
import type { SessionEvent } from '../../contract/events.ts';

const TIMER_STARTED = proto.temporal.api.enums.v1.EventType.EVENT_TYPE_TIMER_STARTED;
const DAY = 24 * 60 * 60 * 1000;
/** One day of production time, env. */
const DAY_MS = 300;
const compress = (ms: number) => Math.max(1, Math.round((ms / DAY) * DAY_MS));

const defaults = testConfig();
const SEVEN_DAYS = defaults.approvals.defaultExpiryMs;
const RETRY_SCHEDULE = defaults.webhooks.retryScheduleMs;

/** The production defaults compressed: the file's `env`. One test starts an environment with the real ones. */
const test = agentTest({
  OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8',
  APPROVAL_DEFAULT_EXPIRY_MS: String(compress(SEVEN_DAYS)),
  WEBHOOK_RETRY_SCHEDULE_MS: RETRY_SCHEDULE.map(compress).join(','),
  SESSION_IDLE_MS: '1000',
});

let receiver: WebhookReceiver;
beforeAll(async () => {
  receiver = await startWebhookReceiver();
});
afterAll(async () => {
  await receiver?.close();
});

/** The durations of the timers a workflow started, in order, in milliseconds. */
async function timersOf(client: Client, workflowId: string): Promise<number[]> {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  return (history.events ?? [])
    .filter((event) => event.eventType === TIMER_STARTED)
    .map((event) => {
      const timeout = event.timerStartedEventAttributes!.startToFireTimeout!;
      return Number(timeout.seconds ?? 0) * 1000 + Math.round((timeout.nanos ?? 0) / 1e6);
    });
}

const turnCompleted = (events: SessionEvent[]) => events.some((event) => event.type === 'turn.completed');

describe('an approval asked without expiresInMs', () => {
  test('waits APPROVAL_DEFAULT_EXPIRY_MS, seven days by default: its record and its timer say so', async () => {
    expect(SEVEN_DAYS).toBe(7 * DAY);
    const production = await startAgentEnv();
    try {
      const { sessionId, requested } = await askInTurn(production, { input: { question: 'Ship it?', options: ['yes', 'no'] } });
      const approval = await call<{ createdAt: string; expiresAt: string }>(`${production.api.url}/approval/${requested.approvalId}`, {
        headers: production.user.auth,
      });
      expect(Date.parse(approval.body.expiresAt) - Date.parse(approval.body.createdAt)).toBe(SEVEN_DAYS);
      // The timer is set once the request is published, a moment after the event that announced it, and
      // runs from the workflow task that set it: a little less than the record's seven days.
      const timer = await vi.waitFor(async () => {
        const [first] = await timersOf(production.worker.client, approvalWorkflowId(requested.approvalId));
        if (first === undefined) throw new Error('the approval has not set its expiry timer yet');
        return first;
      });
      expect(timer).toBeGreaterThan(SEVEN_DAYS - 60_000);
      expect(timer).toBeLessThanOrEqual(SEVEN_DAYS);
      // Nothing is left waiting for a week on the shared server.
      await call(`${production.api.url}/approval/${requested.approvalId}/answer`, {
        headers: production.user.auth,
        json: { choice: 'no' },
      });
      await production.waitForEvents(sessionId, turnCompleted);
    } finally {
      await production.close();
    }
  });

  test('compressed, the same timer fires: the approval expires, a late answer is 410, and the turn goes on', async ({ env }) => {
    const { sessionId, requested, callId } = await askInTurn(env, {
      input: { question: 'Delete the old backups?', options: ['yes', 'no'] },
      reply: 'I left them.',
    });
    const events = await env.waitForEvents(sessionId, turnCompleted);
    expect(events.find((event) => event.type === 'tool.result' && event.toolCallId === callId)).toMatchObject({
      output: { status: 'expired' },
    });
    const late = await call(`${env.api.url}/approval/${requested.approvalId}/answer`, {
      headers: env.user.auth,
      json: { choice: 'yes' },
    });
    expect(late.status).toBe(410);
    const approval = await call<{ status: string }>(`${env.api.url}/approval/${requested.approvalId}`, {
      headers: env.user.auth,
    });
    expect(approval.body.status).toBe('expired');
    const [timer] = await timersOf(env.worker.client, approvalWorkflowId(requested.approvalId));
    expect(timer).toBeLessThanOrEqual(compress(SEVEN_DAYS));
  });

  test('at a workflow graph node, the same default expires it and the run follows onExpired', async ({ env }) => {
    const { name } = await env.deploy({
      workflows: {
        review: {
          start: 'check',
          nodes: {
            check: { type: 'approval', question: 'Publish?', options: ['yes', 'no'], next: { yes: 'done', no: 'done' }, onExpired: 'late' },
            late: { type: 'agent', prompt: 'Nobody answered in time.' },
            done: { type: 'end' },
          },
        },
      },
    });
    env.fake.enqueue({ text: 'I will follow up tomorrow.' });
    const started = await call<{ sessionId: string; runId: string }>(`${env.api.url}/agent/${name}/workflow/review`, {
      headers: env.user.auth,
      json: {},
    });
    expect(started.status).toBe(202);
    const events = await env.waitForEvents(started.body.sessionId, (all) => all.some((event) => event.type === 'workflow.completed'));
    expect(events.filter((event) => event.type === 'workflow.node').map((event) => (event as { nodeId: string }).nodeId)).toEqual([
      'check',
      'late',
    ]);
    expect(events.find((event) => event.type === 'workflow.completed')).toMatchObject({ outputs: { check: { expired: true } } });
  });
});

test('a delivery nobody accepts runs the whole day-long retry schedule, compressed, then fails', async ({ env }) => {
  receiver.enqueue(...Array.from({ length: RETRY_SCHEDULE.length + 1 }, () => 500));
  const subscribed = await call<{ id: string }>(`${env.api.url}/webhook`, {
    headers: env.user.auth,
    json: { url: receiver.url, events: ['session.completed'] },
  });
  try {
    const sessionId = await env.newSession();
    env.fake.enqueue({ text: 'Done.' });
    await call(`${env.api.url}/session/${sessionId}`, {
      headers: env.user.auth,
      json: { parts: [{ type: 'text', text: 'Go' }] },
    });
    // Published by the session once the turn has ended, a moment after the reply.
    const deliveryId = await vi.waitFor(async () => {
      const { rows } = await env.api.db.query<{ id: string }>('SELECT id FROM webhook_deliveries WHERE subscription_id = $1', [
        subscribed.body.id,
      ]);
      if (!rows[0]) throw new Error('no delivery yet');
      return rows[0].id;
    });
    const workflowId = deliveryWorkflowId(deliveryId);
    const delivery = env.worker.client.workflow.getHandle(workflowId);
    await vi.waitFor(() => delivery.describe());
    await expect(delivery.result()).rejects.toThrow();
    expect(await timersOf(env.worker.client, workflowId)).toEqual(RETRY_SCHEDULE.map(compress));
    expect(receiver.requests).toHaveLength(RETRY_SCHEDULE.length + 1);
  } finally {
    await call(`${env.api.url}/webhook/${subscribed.body.id}`, { method: 'DELETE', headers: env.user.auth });
  }
  // Ten attempts, each an activity and a workflow task or two: room for a busy machine.
}, 60_000);

test("an idle session's workflow ends after SESSION_IDLE_MS; the next send starts it again", async ({ env }) => {
  const sessionId = await env.newSession();
  const send = async (text: string) => {
    const sent = await call<{ reply: string }>(`${env.api.url}/session/${sessionId}`, {
      headers: env.user.auth,
      json: { parts: [{ type: 'text', text }] },
    });
    return sent.body.reply;
  };
  env.fake.enqueue({ text: 'first' }, { text: 'second' });
  expect(await send('one')).toBe('first');
  const handle = env.worker.client.workflow.getHandle(sessionWorkflowId(sessionId));
  const { runId: firstRun } = await handle.describe();
  await handle.result();
  // The idle wait is a timer of SESSION_IDLE_MS (one more is set, and cancelled, if the loop waited before the first send).
  const timers = await timersOf(env.worker.client, sessionWorkflowId(sessionId));
  expect(timers.length).toBeGreaterThan(0);
  expect(new Set(timers)).toEqual(new Set([1000]));
  expect(await send('two')).toBe('second');
  expect((await handle.describe()).runId).not.toBe(firstRun);
});
