// verifyWebhook on a real delivery of the service: accepted (also under the Standard Webhooks
// names, and with the right secret second while rotating), refused when tampered, stale, from the
// future, unsigned or signed with another secret; and it agrees with the `standardwebhooks` package.
import { Webhook } from 'standardwebhooks';
import { describe, expect } from 'vitest';
import { agentWithHooksTest } from '../helpers/harness/fixtures.ts';
import type { ReceivedRequest } from '../helpers/fakes/webhook-receiver.ts';
import type { AgentEnv } from '../helpers/harness/agent-env.ts';
import {
  Client,
  verifyWebhook,
  WebhookMissingHeaderError,
  WebhookSignatureMismatchError,
  WebhookTimestampInFutureError,
  WebhookTimestampTooOldError,
  WebhookVerificationError,
} from '../../sdk/src/index.ts';

const test = agentWithHooksTest({ OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8' }, ['session.completed']);
const OTHER_SECRET = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;

/** One real delivery: a turn completes and the service posts session.completed to the receiver. */
async function realDelivery(env: AgentEnv, hooks: { requests: ReceivedRequest[]; waitForRequests(n: number): Promise<ReceivedRequest[]> }) {
  const client = new Client({ baseUrl: env.api.url, apiKey: env.user.apiKey });
  const before = hooks.requests.length;
  const sessionId = await env.newSession();
  await client.sessions.sendAndWait(sessionId, 'hello');
  const delivery = (await hooks.waitForRequests(before + 1))[before]!;
  return { delivery, sessionId };
}

function onlyHeaders(headers: ReceivedRequest['headers'], prefix: string): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => name.startsWith(prefix)) as Array<[string, string]>);
}

describe('verifyWebhook', () => {
  test('accepts a real delivery, refuses it tampered, stale, future, unsigned or under another secret', async ({ env, hooks }) => {
    const { delivery, sessionId } = await realDelivery(env, hooks);
    const event = await verifyWebhook(delivery.body, delivery.headers, hooks.secret);
    expect(event.type).toBe('session.completed');
    if (event.type === 'session.completed') expect(event.data).toMatchObject({ sessionId, status: 'completed' });
    expect(event.id).toBe(delivery.headers['x-service-id']);

    // The Standard Webhooks names alone, as Headers, from bytes, and while rotating secrets.
    const standardOnly = new Headers(onlyHeaders(delivery.headers, 'webhook-'));
    expect((await verifyWebhook(new TextEncoder().encode(delivery.body), standardOnly, [OTHER_SECRET, hooks.secret])).id).toBe(event.id);

    const tampered = delivery.body.replace('"completed"', '"failed"');
    await expect(verifyWebhook(tampered, delivery.headers, hooks.secret)).rejects.toBeInstanceOf(WebhookSignatureMismatchError);
    await expect(verifyWebhook(delivery.body, delivery.headers, OTHER_SECRET)).rejects.toBeInstanceOf(WebhookSignatureMismatchError);
    const sentAt = Number(delivery.headers['x-service-timestamp']) * 1000;
    await expect(verifyWebhook(delivery.body, delivery.headers, hooks.secret, { now: () => sentAt + 301_000 })).rejects.toBeInstanceOf(
      WebhookTimestampTooOldError,
    );
    await expect(verifyWebhook(delivery.body, delivery.headers, hooks.secret, { now: () => sentAt - 301_000 })).rejects.toBeInstanceOf(
      WebhookTimestampInFutureError,
    );
    const { 'x-service-signature': _x, 'webhook-signature': _w, ...unsigned } = delivery.headers;
    const missing = await verifyWebhook(delivery.body, unsigned, hooks.secret).catch((caught: unknown) => caught);
    expect(missing).toBeInstanceOf(WebhookMissingHeaderError);
    expect(missing).toBeInstanceOf(WebhookVerificationError);
  });

  test('agrees with the standardwebhooks package on the same deliveries', async ({ env, hooks }) => {
    const { delivery } = await realDelivery(env, hooks);
    const standard = new Webhook(hooks.secret);
    const headers = onlyHeaders(delivery.headers, 'webhook-');
    const verdict = async (body: string, signedHeaders: Record<string, string>) => ({
      ours: await verifyWebhook(body, signedHeaders, hooks.secret).then(
        () => 'accepted',
        (error: Error) => error.name,
      ),
      theirs: (() => {
        try {
          standard.verify(body, signedHeaders);
          return 'accepted';
        } catch {
          return 'refused';
        }
      })(),
    });
    expect(await verdict(delivery.body, headers)).toEqual({ ours: 'accepted', theirs: 'accepted' });
    expect(await verdict(`${delivery.body} `, headers)).toEqual({ ours: 'WebhookSignatureMismatchError', theirs: 'refused' });
    // Signed by the package, ten minutes old and ten minutes ahead: both refuse; just now: both accept.
    const id = headers['webhook-id']!;
    for (const [offsetMs, ours] of [
      [-600_000, 'WebhookTimestampTooOldError'],
      [600_000, 'WebhookTimestampInFutureError'],
      [0, 'accepted'],
    ] as const) {
      const at = new Date(Date.now() + offsetMs);
      const signed = {
        'webhook-id': id,
        'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
        'webhook-signature': standard.sign(id, at, delivery.body),
      };
      expect(await verdict(delivery.body, signed)).toEqual({ ours, theirs: ours === 'accepted' ? 'accepted' : 'refused' });
    }
  });
});
