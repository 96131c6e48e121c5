// Most users subscribe to no webhook. A turn that completes then publishes nothing: the step that wrote
// turn.completed found no subscription to session.completed, and the session workflow runs no local
// activity for it (a trip through the worker, a query and a marker in history saved per turn). Once the
// user subscribes, the next turn's end is published and delivered.
import { expect } from 'vitest';
import { agentTest } from '../helpers/harness/fixtures.ts';
import { startWebhookReceiver } from '../helpers/fakes/webhook-receiver.ts';
import { call } from '../helpers/client/request.ts';
import { sessionWorkflowId } from '../../lib/workflow-safe/workflow-ids.ts';
import type { AgentEnv } from '../helpers/harness/agent-env.ts';

const test = agentTest({ OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8' });

/** How many times the session workflow ran the local activity that publishes a webhook event. */
async function publishings(env: AgentEnv, sessionId: string): Promise<number> {
  const history = await env.worker.client.workflow.getHandle(sessionWorkflowId(sessionId)).fetchHistory();
  const decoder = new TextDecoder();
  return (history.events ?? []).filter((event) => {
    const details = event.markerRecordedEventAttributes?.details ?? {};
    return Object.values(details).some((payloads) =>
      (payloads.payloads ?? []).some((payload) => payload.data && decoder.decode(payload.data).includes('publishWebhookEvent')),
    );
  }).length;
}

test('a completed turn of a user with no subscription publishes nothing; after subscribing, the next one arrives', async ({ env }) => {
  const receiver = await startWebhookReceiver();
  try {
    const sessionId = await env.newSession();
    const send = (text: string) =>
      call<{ messageId: string; status: string }>(`${env.api.url}/session/${sessionId}`, {
        headers: env.user.auth,
        json: { parts: [{ type: 'text', text }] },
      });
    env.fake.enqueue({ text: 'Nobody listens.' }, { text: 'Someone listens.' });
    expect((await send('one')).body.status).toBe('completed');

    const created = await call<{ id: string }>(`${env.api.url}/webhook`, {
      headers: env.user.auth,
      json: { url: receiver.url, events: ['session.completed'] },
    });
    expect(created.status).toBe(201);
    const second = await send('two');
    expect(second.body.status).toBe('completed');
    const [delivered] = await receiver.waitForRequests(1);
    expect(JSON.parse(delivered!.body)).toMatchObject({ type: 'session.completed', data: { sessionId, turnId: second.body.messageId } });
    // Only the second turn's end was published (both ran in this run of the session's workflow).
    expect(await publishings(env, sessionId)).toBe(1);
    await call(`${env.api.url}/webhook/${created.body.id}`, { method: 'DELETE', headers: env.user.auth });
  } finally {
    await receiver.close();
  }
});
