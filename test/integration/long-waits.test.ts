// Waits measured in days, run in seconds. Temporal's time-skipping test server cannot be had on this
// machine (README: "Versioning workflows"), so every long wait is a real timer of the real workflow
// whose length comes from configuration, carried in the workflow's input: with the production
// defaults the timers in history are seven days (an approval) or about a day of retries (a delivery);
// with the same defaults compressed (one day = DAY_MS) the same timers fire, and what follows the
// firing runs as in production. Durations are read from history, never measured on a clock.
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import type { Client } from '@temporalio/client';
import proto from '@temporalio/proto';
import { startAgentEnv, type AgentEnv } from '../helpers/harness/agent-env.ts';
import { askInTurn } from '../helpers/harness/ask-in-turn.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/fakes/webhook-receiver.ts';
import { testConfig } from '../helpers/harness/env.ts';
import { call } from '../helpers/client/request.ts';
import { approvalWorkflowId, deliveryWorkflowId, sessionWorkflowId } from '../../lib/workflow-ids.ts';
import type { SessionEvent } from '../../contract/events.ts';

const TIMER_STARTED = proto.temporal.api.enums.v1.EventType.EVENT_TYPE_TIMER_STARTED;
const DAY = 24 * 60 * 60 * 1000;
/** One day of production time, compressed. */
const DAY_MS = 300;
const compress = (ms: number) => Math.max(1, Math.round((ms / DAY) * DAY_MS));

const defaults = testConfig();
const SEVEN_DAYS = defaults.approvals.defaultExpiryMs;
const RETRY_SCHEDULE = defaults.webhooks.retryScheduleMs;

let production: AgentEnv;
let compressed: AgentEnv;
let receiver: WebhookReceiver;
beforeAll(async () => {
  [production, compressed, receiver] = await Promise.all([
    startAgentEnv(),
    startAgentEnv({
      OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8',
      APPROVAL_DEFAULT_EXPIRY_MS: String(compress(SEVEN_DAYS)),
      WEBHOOK_RETRY_SCHEDULE_MS: RETRY_SCHEDULE.map(compress).join(','),
      SESSION_IDLE_MS: '1000',
    }),
    startWebhookReceiver(),
  ]);
});
afterAll(async () => {
  await Promise.all([production?.close(), compressed?.close(), receiver?.close()]);
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
    const { sessionId, requested } = await askInTurn(production, { input: { question: 'Ship it?', options: ['yes', 'no'] } });
    const approval = await call<{ createdAt: string; expiresAt: string }>(`${production.api.url}/approval/${requested.approvalId}`, {
      headers: production.user.auth,
    });
    expect(Date.parse(approval.body.expiresAt) - Date.parse(approval.body.createdAt)).toBe(SEVEN_DAYS);
    // The timer runs from the workflow task that set it, a moment after the record's creation.
    const [timer] = await timersOf(production.worker.client, approvalWorkflowId(requested.approvalId));
    expect(timer).toBeGreaterThan(SEVEN_DAYS - 60_000);
    expect(timer).toBeLessThanOrEqual(SEVEN_DAYS);
    // Nothing is left waiting for a week on the shared server.
    await call(`${production.api.url}/approval/${requested.approvalId}/answer`, { headers: production.user.auth, json: { choice: 'no' } });
    await production.waitForEvents(sessionId, turnCompleted);
  });

  test('compressed, the same timer fires: the approval expires, a late answer is 410, and the turn goes on', async () => {
    const { sessionId, requested, callId } = await askInTurn(compressed, {
      input: { question: 'Delete the old backups?', options: ['yes', 'no'] },
      reply: 'I left them.',
    });
    const events = await compressed.waitForEvents(sessionId, turnCompleted);
    expect(events.find((event) => event.type === 'tool.result' && event.toolCallId === callId)).toMatchObject({
      output: { status: 'expired' },
    });
    const late = await call(`${compressed.api.url}/approval/${requested.approvalId}/answer`, {
      headers: compressed.user.auth,
      json: { choice: 'yes' },
    });
    expect(late.status).toBe(410);
    const approval = await call<{ status: string }>(`${compressed.api.url}/approval/${requested.approvalId}`, {
      headers: compressed.user.auth,
    });
    expect(approval.body.status).toBe('expired');
    const [timer] = await timersOf(compressed.worker.client, approvalWorkflowId(requested.approvalId));
    expect(timer).toBeLessThanOrEqual(compress(SEVEN_DAYS));
  });

  test('at a workflow graph node, the same default expires it and the run follows onExpired', async () => {
    const { name } = await compressed.deploy({
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
    compressed.fake.enqueue({ text: 'I will follow up tomorrow.' });
    const started = await call<{ sessionId: string; runId: string }>(`${compressed.api.url}/agent/${name}/workflow/review`, {
      headers: compressed.user.auth,
      json: {},
    });
    expect(started.status).toBe(202);
    const events = await compressed.waitForEvents(started.body.sessionId, (all) =>
      all.some((event) => event.type === 'workflow.completed'),
    );
    expect(events.filter((event) => event.type === 'workflow.node').map((event) => (event as { nodeId: string }).nodeId)).toEqual([
      'check',
      'late',
    ]);
    expect(events.find((event) => event.type === 'workflow.completed')).toMatchObject({ outputs: { check: { expired: true } } });
  });
});

test('a delivery nobody accepts runs the whole day-long retry schedule, compressed, then fails', async () => {
  receiver.enqueue(...Array.from({ length: RETRY_SCHEDULE.length + 1 }, () => 500));
  const subscribed = await call<{ id: string }>(`${compressed.api.url}/webhook`, {
    headers: compressed.user.auth,
    json: { url: receiver.url, events: ['session.completed'] },
  });
  try {
    const sessionId = await compressed.newSession();
    compressed.fake.enqueue({ text: 'Done.' });
    await call(`${compressed.api.url}/session/${sessionId}`, {
      headers: compressed.user.auth,
      json: { parts: [{ type: 'text', text: 'Go' }] },
    });
    // Published by the session once the turn has ended, a moment after the reply.
    const deliveryId = await vi.waitFor(async () => {
      const { rows } = await compressed.api.db.query<{ id: string }>('SELECT id FROM webhook_deliveries WHERE subscription_id = $1', [
        subscribed.body.id,
      ]);
      if (!rows[0]) throw new Error('no delivery yet');
      return rows[0].id;
    });
    const workflowId = deliveryWorkflowId(deliveryId);
    const delivery = compressed.worker.client.workflow.getHandle(workflowId);
    await vi.waitFor(() => delivery.describe());
    await expect(delivery.result()).rejects.toThrow();
    expect(await timersOf(compressed.worker.client, workflowId)).toEqual(RETRY_SCHEDULE.map(compress));
    expect(receiver.requests).toHaveLength(RETRY_SCHEDULE.length + 1);
  } finally {
    await call(`${compressed.api.url}/webhook/${subscribed.body.id}`, { method: 'DELETE', headers: compressed.user.auth });
  }
  // Ten attempts, each an activity and a workflow task or two: room for a busy machine.
}, 60_000);

test("an idle session's workflow ends after SESSION_IDLE_MS; the next send starts it again", async () => {
  const sessionId = await compressed.newSession();
  const send = async (text: string) => {
    const sent = await call<{ reply: string }>(`${compressed.api.url}/session/${sessionId}`, {
      headers: compressed.user.auth,
      json: { parts: [{ type: 'text', text }] },
    });
    return sent.body.reply;
  };
  compressed.fake.enqueue({ text: 'first' }, { text: 'second' });
  expect(await send('one')).toBe('first');
  const handle = compressed.worker.client.workflow.getHandle(sessionWorkflowId(sessionId));
  const { runId: firstRun } = await handle.describe();
  await handle.result();
  // The idle wait is a timer of SESSION_IDLE_MS (one more is set, and cancelled, if the loop waited before the first send).
  const timers = await timersOf(compressed.worker.client, sessionWorkflowId(sessionId));
  expect(timers.length).toBeGreaterThan(0);
  expect(new Set(timers)).toEqual(new Set([1000]));
  expect(await send('two')).toBe('second');
  expect((await handle.describe()).runId).not.toBe(firstRun);
});
