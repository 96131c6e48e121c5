// Webhook triggers: POST /trigger/<userId>/<agentId>/<suffix> without a key opens a fresh session
// whose first user message is the body (JSON kept as its text), answers 202 {sessionId, messageId},
// and the agent's turn runs. Wrong parts of the URL are all the same 404; limits are enforced. A retry
// with the same Idempotency-Key (or a sender's delivery id) answers the first firing and fires nothing.
import { describe, expect, vi } from 'vitest';
import { randomUUID } from 'node:crypto';
import type { AgentEnv } from '../helpers/harness/agent-env.ts';
import { agentWithHooksTest } from '../helpers/harness/fixtures.ts';
import { startTestApi } from '../helpers/harness/api.ts';
import { startTcpProxy } from '../helpers/fakes/tcp-proxy.ts';
import { lastUserText } from '../helpers/fakes/fake-model.ts';
import { call } from '../helpers/client/request.ts';
import { verifyWebhook } from '../../lib/webhook-signature.ts';
import type { SessionEvent } from '../../contract/events.ts';

const test = agentWithHooksTest({ OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8', TRIGGER_RATE_LIMIT_POINTS: '3', RATE_LIMIT_WINDOW_SECONDS: '60' }, [
  'trigger.fired',
]);

async function deployWithTrigger(env: AgentEnv, trigger: Record<string, unknown> = { kind: 'webhook' }) {
  const { name, agentId } = await env.deploy({ triggers: [trigger] });
  const agent = await call<{ triggers: Array<{ kind: string; url: string }> }>(`${env.api.url}/agent/${name}`, { headers: env.user.auth });
  return { name, agentId, url: agent.body.triggers[0]!.url };
}

async function fire(url: string, body: string | undefined, contentType?: string) {
  return call<{ sessionId: string; messageId: string }>(url, {
    method: 'POST',
    headers: contentType ? { 'content-type': contentType } : {},
    ...(body !== undefined ? { body } : {}),
  });
}

function firstUserText(events: SessionEvent[]): string | undefined {
  const created = events.find((event) => event.type === 'message.created' && event.message.role === 'user');
  if (created?.type !== 'message.created') return undefined;
  const part = created.message.parts[0];
  return part?.type === 'text' ? part.text : undefined;
}

describe('webhook triggers', () => {
  test('a JSON body becomes the first user message, as its JSON text, and the turn runs', async ({ env }) => {
    const { url } = await deployWithTrigger(env);
    expect(url).toMatch(new RegExp(`/trigger/${env.user.userId}/agt_[0-9a-z]{26}/[0-9a-z]{26}$`));
    env.fake.enqueue({ text: 'Order noted.' });
    const body = '{"order": 1042, "items": ["lamp"]}';
    const response = await fire(url, body, 'application/json');
    expect(response.status).toBe(202);
    expect(response.body).toEqual({ sessionId: expect.stringMatching(/^ses_/), messageId: expect.stringMatching(/^msg_/) });
    const { sessionId, messageId } = response.body;
    const events = await env.waitForEvents(sessionId, (all) => all.some((event) => event.type === 'turn.completed'));
    expect(events[0]!.type).toBe('session.created');
    expect(events[1]).toMatchObject({ type: 'trigger.fired', trigger: { kind: 'webhook', index: 0 } });
    const user = events.find((event) => event.type === 'message.created' && event.message.role === 'user');
    expect(user).toMatchObject({ message: { id: messageId } });
    expect(firstUserText(events)).toBe(body);
    const session = await call<{ messages: unknown[] }>(`${env.api.url}/session/${sessionId}`, { headers: env.user.auth });
    expect(session.status).toBe(200);
  });

  test('a text body and an empty body', async ({ env }) => {
    const { url } = await deployWithTrigger(env, { kind: 'webhook', suffix: 'plain-text-hook' });
    expect(url.endsWith('/plain-text-hook')).toBe(true);
    const text = await fire(url, 'Disk almost full on db-1', 'text/plain');
    expect(text.status).toBe(202);
    const textEvents = await env.waitForEvents(text.body.sessionId, (all) => all.some((event) => event.type === 'turn.completed'));
    expect(firstUserText(textEvents)).toBe('Disk almost full on db-1');

    const empty = await fire(url, undefined);
    expect(empty.status).toBe(202);
    const emptyEvents = await env.waitForEvents(empty.body.sessionId, (all) => all.some((event) => event.type === 'turn.completed'));
    expect(firstUserText(emptyEvents)).toBe('Webhook trigger fired with an empty body.');
  });

  test('a wrong suffix, agent id or user id is the same 404; a deleted agent too', async ({ env }) => {
    const { name, agentId, url } = await deployWithTrigger(env);
    const base = url.slice(0, url.lastIndexOf('/'));
    const wrongSuffix = await fire(`${base}/aaaaaaaaaaaaaaaaaaaaaaaaaa`, 'x', 'text/plain');
    const wrongUser = await fire(url.replace(env.user.userId, 'usr_aaaaaaaaaaaaaaaaaaaaaaaaaa'), 'x', 'text/plain');
    const wrongAgent = await fire(url.replace(agentId, 'agt_aaaaaaaaaaaaaaaaaaaaaaaaaa'), 'x', 'text/plain');
    for (const response of [wrongSuffix, wrongUser, wrongAgent]) {
      expect(response.status).toBe(404);
      expect(response.body).toMatchObject({ detail: 'There is no trigger at this address' });
    }
    expect((await call(`${env.api.url}/agent/${name}`, { method: 'DELETE', headers: env.user.auth })).status).toBe(204);
    expect((await fire(url, 'x', 'text/plain')).status).toBe(404);
  });

  test('limits: 2 MiB is 413, bytes that are not UTF-8 are 415, malformed JSON is 400', async ({ env }) => {
    const { url } = await deployWithTrigger(env);
    expect((await fire(url, 'x'.repeat(2 * 1024 * 1024), 'text/plain')).status).toBe(413);
    const binary = await call(url, {
      method: 'POST',
      headers: { 'content-type': 'application/octet-stream' },
      body: Buffer.from([0xff, 0xfe, 0x00, 0x80]),
    });
    expect(binary.status).toBe(415);
    expect((await fire(url, '{"broken": ', 'application/json')).status).toBe(400);
  });

  test('each trigger has its own rate limit', async ({ env }) => {
    const first = await deployWithTrigger(env);
    const second = await deployWithTrigger(env);
    // TRIGGER_RATE_LIMIT_POINTS is 3 here.
    const responses = [];
    for (let i = 0; i < 4; i++) responses.push(await fire(first.url, `event ${i}`, 'text/plain'));
    expect(responses.map((response) => response.status)).toEqual([202, 202, 202, 429]);
    const other = await fire(second.url, 'other trigger', 'text/plain');
    expect(other.status).toBe(202);
    const fired = [...responses.slice(0, 3), other].map((response) => response.body.sessionId);
    await Promise.all(fired.map((id) => env.waitForEvents(id, (all) => all.some((event) => event.type === 'turn.completed'))));
  });

  test('trigger.fired is delivered as a webhook event', async ({ env, hooks }) => {
    const { agentId, url } = await deployWithTrigger(env);
    const response = await fire(url, 'ping', 'text/plain');
    const found = await vi.waitFor(
      () => {
        const event = hooks.requests
          .map((request) =>
            verifyWebhook<{ type: string; data: Record<string, unknown> }>({
              secret: hooks.secret,
              headers: request.headers,
              body: request.body,
            }),
          )
          .find((event) => event.data.sessionId === response.body.sessionId);
        if (!event) throw new Error('no webhook event about the firing yet');
        return event;
      },
      { timeout: 15_000, interval: 100 },
    );
    expect(found).toMatchObject({ type: 'trigger.fired', data: { agentId, trigger: { kind: 'webhook', index: 0 }, workflow: null } });
    await env.waitForEvents(response.body.sessionId, (all) => all.some((event) => event.type === 'turn.completed'));
  });
});

describe('a firing is one unit: its session appears with its workflow, or not at all', () => {
  test('when the workflow cannot be started the firing is 503 and leaves no session; a working firing is readable at once', async ({
    env,
  }) => {
    const { name, url } = await deployWithTrigger(env);
    // Same database, but a Temporal namespace that does not exist: every start fails.
    const broken = await startTestApi({ ...env.env, TEMPORAL_NAMESPACE: `no-such-namespace-${randomUUID()}` });
    try {
      const path = new URL(url).pathname;
      for (let attempt = 0; attempt < 2; attempt++) {
        const failed = await fire(`${broken.url}${path}`, 'lost in the crash window?', 'text/plain');
        expect(failed.status, failed.text).toBe(503);
      }
    } finally {
      await broken.close();
    }
    const listed = await call<{ sessions: unknown[] }>(`${env.api.url}/agent/${name}/sessions`, { headers: env.user.auth });
    expect(listed.body.sessions).toEqual([]);

    const fired = await fire(url, 'this one works', 'text/plain');
    expect(fired.status).toBe(202);
    const session = await call(`${env.api.url}/session/${fired.body.sessionId}`, { headers: env.user.auth });
    expect(session.status).toBe(200);
    const events = await env.waitForEvents(fired.body.sessionId, (all) => all.some((event) => event.type === 'turn.completed'));
    expect(events.find((event) => event.type === 'message.created')).toMatchObject({ message: { id: fired.body.messageId } });
    const after = await call<{ sessions: Array<{ id: string }> }>(`${env.api.url}/agent/${name}/sessions`, { headers: env.user.auth });
    expect(after.body.sessions.map((listedSession) => listedSession.id)).toEqual([fired.body.sessionId]);
  });
});

describe('a retried firing (the same Idempotency-Key, or a sender delivery id) fires once', () => {
  const sessionsOf = async (env: AgentEnv, name: string) =>
    (
      await call<{ sessions: Array<{ id: string }> }>(`${env.api.url}/agent/${name}/sessions`, { headers: env.user.auth })
    ).body.sessions.map((session) => session.id);
  const userMessageIds = (events: SessionEvent[]) =>
    events.flatMap((event) => (event.type === 'message.created' && event.message.role === 'user' ? [event.message.id] : []));

  test('the same Idempotency-Key answers the first 202 and opens no second session; another body is 422', async ({ env }) => {
    const { name, url } = await deployWithTrigger(env);
    const key = randomUUID();
    const headers = { 'content-type': 'text/plain', 'idempotency-key': key };
    const first = await call<{ sessionId: string; messageId: string }>(url, { method: 'POST', headers, body: 'deploy finished' });
    expect(first.status, first.text).toBe(202);
    const again = await call<{ sessionId: string; messageId: string }>(url, { method: 'POST', headers, body: 'deploy finished' });
    expect(again.status, again.text).toBe(202);
    expect(again.body).toEqual(first.body);
    const other = await call<{ type: string }>(url, { method: 'POST', headers, body: 'another event' });
    expect(other.status, other.text).toBe(422);
    expect(other.body.type).toMatch(/idempotency-key-reused$/);

    const events = await env.waitForEvents(first.body.sessionId, (all) => all.some((event) => event.type === 'turn.completed'));
    expect(userMessageIds(events)).toEqual([first.body.messageId]);
    expect(await sessionsOf(env, name)).toEqual([first.body.sessionId]);
  });

  test("a sender's delivery id (X-GitHub-Delivery, webhook-id) is the key when no Idempotency-Key is given", async ({ env }) => {
    const { name, url } = await deployWithTrigger(env);
    const delivery = randomUUID();
    const github = (id: string) => call<{ sessionId: string }>(url, { method: 'POST', headers: { 'x-github-delivery': id }, body: 'push' });
    const first = await github(delivery);
    const redelivered = await github(delivery);
    const next = await github(randomUUID());
    expect([first.status, redelivered.status, next.status]).toEqual([202, 202, 202]);
    expect(redelivered.body.sessionId).toBe(first.body.sessionId);
    expect(next.body.sessionId).not.toBe(first.body.sessionId);

    const standard = await deployWithTrigger(env);
    const messageId = `msg_${randomUUID()}`;
    const viaStandard = () =>
      call<{ sessionId: string }>(standard.url, { method: 'POST', headers: { 'webhook-id': messageId }, json: { type: 'user.created' } });
    const [one, two] = [await viaStandard(), await viaStandard()];
    expect([one.status, two.status]).toEqual([202, 202]);
    expect(two.body.sessionId).toBe(one.body.sessionId);

    await Promise.all(
      [first, next, one].map((fired) =>
        env.waitForEvents(fired.body.sessionId, (all) => all.some((event) => event.type === 'turn.completed')),
      ),
    );
    expect((await sessionsOf(env, name)).sort()).toEqual([first.body.sessionId, next.body.sessionId].sort());
    expect(await sessionsOf(env, standard.name)).toEqual([one.body.sessionId]);
  });

  test('a firing Temporal took but did not confirm in time: a 503 saying it may have fired, and a retry with the key fires nothing more', async ({
    env,
  }) => {
    const { name, url } = await deployWithTrigger(env);
    // Temporal's answers to this API are held back: its start of the trigger workflow is carried out, unconfirmed.
    const proxy = await startTcpProxy(env.api.config.temporalAddress!);
    const slow = await startTestApi({ ...env.env, TEMPORAL_ADDRESS: proxy.address, TEMPORAL_CALL_TIMEOUT_MS: '1500' });
    const key = randomUUID();
    const body = `unconfirmed ${key}`;
    try {
      expect((await call(`${slow.url}/auth/health`)).status).toBe(200);
      proxy.holdReplies();
      const unconfirmed = await call<{ detail: string }>(`${slow.url}${new URL(url).pathname}`, {
        method: 'POST',
        headers: { 'content-type': 'text/plain', 'idempotency-key': key },
        body,
      });
      proxy.releaseReplies();
      expect(unconfirmed.status, unconfirmed.text).toBe(503);
      expect(unconfirmed.body.detail).toMatch(/may or may not have been accepted/);
      expect(unconfirmed.body.detail).toMatch(/same Idempotency-Key/);
    } finally {
      proxy.releaseReplies();
      await slow.close();
      await proxy.close();
    }

    const retried = await call<{ sessionId: string; messageId: string }>(url, {
      method: 'POST',
      headers: { 'content-type': 'text/plain', 'idempotency-key': key },
      body,
    });
    expect(retried.status, retried.text).toBe(202);
    const events = await env.waitForEvents(retried.body.sessionId, (all) => all.some((event) => event.type === 'turn.completed'));
    expect(userMessageIds(events)).toEqual([retried.body.messageId]);
    expect(await sessionsOf(env, name)).toEqual([retried.body.sessionId]);
    expect(env.fake.requests.filter((request) => lastUserText(request) === body)).toHaveLength(1);
  });

  test('a workflow run started through the API with an Idempotency-Key runs once', async ({ env }) => {
    const { name } = await env.deploy({
      workflows: { once: { start: 'work', nodes: { work: { type: 'agent', prompt: 'Work on {{input}}' } } } },
    });
    const key = randomUUID();
    const start = () =>
      call<{ sessionId: string; runId: string }>(`${env.api.url}/agent/${name}/workflow/once`, {
        headers: { ...env.user.auth, 'idempotency-key': key },
        json: { input: 'the report' },
      });
    const [first, again] = [await start(), await start()];
    expect([first.status, again.status]).toEqual([202, 202]);
    expect(again.body).toEqual(first.body);
    await env.waitForEvents(first.body.sessionId, (all) => all.some((event) => event.type === 'workflow.completed'));
    expect(await sessionsOf(env, name)).toEqual([first.body.sessionId]);
  });
});
