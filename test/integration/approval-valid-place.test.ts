// A decision is valid when the action runs, not only when the turn takes it up: a call approved in time
// that then waits for a place among its user's running turns (RUNNING_TURNS_PER_USER) for longer than its
// policy's validForMs does not run when it gets one. The turn asks again, and the tool runs once, after
// the second approval.
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startAgentEnv, type AgentEnv } from '../helpers/harness/agent-env.ts';
import { call } from '../helpers/client/request.ts';
import { startPaymentTarget, type PaymentTarget } from '../helpers/fakes/payment-target.ts';
import type { FakeRequest } from '../helpers/fakes/fake-model.ts';
import type { SessionEvent } from '../../contract/events.ts';

let env: AgentEnv;
let payments: PaymentTarget;
let received: string[];
let target: string;

beforeAll(async () => {
  payments = await startPaymentTarget();
  ({ received, url: target } = payments);
  env = await startAgentEnv({ OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8', RUNNING_TURNS_PER_USER: '1' });
});

afterAll(async () => {
  await env?.close();
  await payments?.close();
});

const lastUserText = (request: FakeRequest) => JSON.stringify((request.body.messages as { content: unknown }[]).at(-1)?.content);

const requested = (events: SessionEvent[]) =>
  events.filter((event) => event.type === 'approval.requested') as Array<Extract<SessionEvent, { type: 'approval.requested' }>>;

const answer = (approvalId: string) =>
  call(`${env.api.url}/approval/${approvalId}/answer`, { headers: env.user.auth, json: { choice: 'approve' } });

const sendAsync = async (sessionId: string, text: string) => {
  const sent = await call(`${env.api.url}/session/${sessionId}?async=1`, {
    headers: env.user.auth,
    json: { parts: [{ type: 'text', text }] },
  });
  expect(sent.status, sent.text).toBe(202);
};

test(
  'an approval that ages past validForMs while its call waits for a place is asked again; the tool runs once',
  { timeout: 90_000 },
  async () => {
    const paying = await env.newSession({ mcps: ['http'], toolPolicies: { http: { http_request: { ask: { validForMs: 5_000 } } } } });
    const busy = await env.newSession();
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    env.fake.setHandler((request) => {
      const said = lastUserText(request);
      if (said.includes('hold the place')) return { text: 'Held.', holdUntil: released };
      if (said.includes('pay 501'))
        return { toolCalls: [{ id: 'call_501', name: 'http_request', arguments: { url: target, method: 'POST', body: 'order 501' } }] };
      return { text: 'Done.' };
    });

    await sendAsync(paying, 'pay 501');
    const first = requested(await env.waitForEvents(paying, (events) => requested(events).length >= 1))[0]!;
    // The user's one place is taken by another turn's step, which holds it past the approval's validity.
    const before = env.fake.requests.length;
    await sendAsync(busy, 'hold the place');
    await env.fake.waitForRequests(before + 1, 20_000);
    // Approved at once: fresh when the turn takes it up, so the call goes to wait for the place.
    expect((await answer(first.approvalId)).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 6_000));
    expect(received.filter((body) => body === 'order 501')).toEqual([]);
    release();

    // Given the place 6 s after an approval valid for 5 s: not run, asked again.
    const again = requested(await env.waitForEvents(paying, (events) => requested(events).length >= 2, 30_000));
    expect(again[1]!.question).toMatch(/^Asked again: the approval given at .* is older than this tool's approvals stay valid \(5 s\)/);
    expect(received.filter((body) => body === 'order 501')).toEqual([]);
    expect((await answer(again[1]!.approvalId)).status).toBe(200);
    const events = await env.waitForEvents(
      paying,
      (all) => all.some((event) => event.type === 'turn.completed' || event.type === 'turn.failed'),
      30_000,
    );
    expect(events.at(-1)).toMatchObject({ type: 'turn.completed' });
    expect(received.filter((body) => body === 'order 501')).toEqual(['order 501']);
    env.fake.setHandler(undefined);
  },
);
