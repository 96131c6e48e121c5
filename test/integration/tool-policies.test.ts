// Approval policies on tool calls (bundle `toolPolicies`), end to end through real turns: an `ask` call
// becomes a durable approval written by the service over the agent's channels (Slack's fake here, with
// signed links and with replies), approve runs the tool once, deny tells the model with the note, a
// `never` call is refused, several calls of one step are answerable in any order, and two channels
// answering at once run the tool once. The tool is the built-in `http`, against a receiver counting calls.
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startAgentEnv, type AgentEnv } from '../helpers/harness/agent-env.ts';
import { startFakeSlack, type FakeSlack, type SlackCall } from '../helpers/fakes/fake-slack.ts';
import { call } from '../helpers/client/request.ts';
import { settledDispatches } from '../helpers/client/approval-dispatches.ts';
import { openLink } from '../helpers/client/browser-headers.ts';
import { closeServer } from '../helpers/fakes/recorded.ts';
import { slackSignature } from '../../api/inbound/slack.ts';
import type { SessionEvent } from '../../contract/events.ts';

let env: AgentEnv;
let slack: FakeSlack;
let receiver: Server;
/** Bodies the receiver got, each with its Idempotency-Key. */
const received: { body: string; key: string | undefined }[] = [];
let target: string;
const SIGNING = `signing-${randomUUID()}`;

beforeAll(async () => {
  slack = await startFakeSlack();
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      received.push({ body, key: req.headers['idempotency-key'] as string | undefined });
      res.writeHead(200, { 'content-type': 'text/plain' }).end(`done: ${body}`);
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  target = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/refund`;
  env = await startAgentEnv({ OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8', SLACK_API_BASE_URL: slack.baseUrl });
  await putSecret('POLICY_SLACK_TOKEN', 'xoxb-policy');
  await putSecret('POLICY_SLACK_SIGNING', SIGNING);
});

afterAll(async () => {
  await env?.close();
  await slack?.close();
  if (receiver) await closeServer(receiver);
});

async function putSecret(name: string, value: string): Promise<void> {
  const response = await call(`${env.api.url}/secret/${name}`, { method: 'PUT', headers: env.user.auth, json: { value } });
  expect(response.status).toBeLessThan(300);
}

/** An agent with the http tool under `policies`, asking over one Slack channel (buttons, or thread replies). */
function bundle(
  policies: Record<string, Record<string, string>>,
  answerVia: 'signed-url' | 'reply' = 'signed-url',
  channel = 'C0POLICY01',
) {
  return {
    mcps: ['http', 'time'],
    toolPolicies: policies,
    secretGrants: ['POLICY_SLACK_TOKEN', 'POLICY_SLACK_SIGNING'],
    userChannels: [
      {
        provider: 'slack',
        answerVia,
        config: {
          token: '{{secrets.POLICY_SLACK_TOKEN}}',
          channel,
          ...(answerVia === 'reply' ? { signingSecret: '{{secrets.POLICY_SLACK_SIGNING}}' } : {}),
        },
      },
    ],
  };
}

const refund = (order: number, id = `call_${order}`) => ({
  id,
  name: 'http_request',
  arguments: { url: target, method: 'POST', body: `order ${order}` },
});

async function sendAsync(sessionId: string, text: string): Promise<void> {
  const sent = await call(`${env.api.url}/session/${sessionId}?async=1`, {
    headers: env.user.auth,
    json: { parts: [{ type: 'text', text }] },
  });
  expect(sent.status).toBe(202);
}

const requestedIn = (sessionId: string, count: number) =>
  env
    .waitForEvents(sessionId, (events) => events.filter((event) => event.type === 'approval.requested').length >= count)
    .then(
      (events) => events.filter((event) => event.type === 'approval.requested') as Extract<SessionEvent, { type: 'approval.requested' }>[],
    );
const ended = (sessionId: string) =>
  env.waitForEvents(
    sessionId,
    (events) => events.some((event) => ['turn.completed', 'turn.failed', 'turn.aborted'].includes(event.type)),
    30_000,
  );
const toolResults = (events: SessionEvent[]) =>
  events.filter((event) => event.type === 'tool.result') as Extract<SessionEvent, { type: 'tool.result' }>[];

async function slackPostFor(approvalId: string): Promise<SlackCall> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const found = slack.calls.find(
      (posted) => JSON.stringify(posted.body ?? {}).includes(approvalId) || linksOf(posted).some((url) => url.includes(approvalId)),
    );
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`no Slack message for ${approvalId}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
function linksOf(posted: SlackCall): string[] {
  const blocks = (posted.body?.blocks ?? []) as Array<{ type: string; elements?: { url: string }[] }>;
  return blocks.filter((block) => block.type === 'actions').flatMap((block) => (block.elements ?? []).map((button) => button.url));
}
const buttonText = (posted: SlackCall) =>
  ((posted.body?.blocks ?? []) as Array<{ type: string; elements?: { text: { text: string } }[] }>)
    .filter((block) => block.type === 'actions')
    .flatMap((block) => (block.elements ?? []).map((button) => button.text.text));

/** The Slack message for the approval whose question names `order`. */
async function slackPostAbout(order: number): Promise<SlackCall> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const found = slack.calls.find((posted) => String(posted.body?.text ?? '').includes(`order ${order}`));
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`no Slack message about order ${order}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Waits until the approval's dispatches are recorded, each sent (test/helpers/client/approval-dispatches.ts). */
async function sentRecorded(approvalId: string): Promise<void> {
  const dispatches = await settledDispatches(env.api, env.user.auth, approvalId);
  expect(dispatches.map((dispatch) => dispatch.status)).toEqual(dispatches.map(() => 'sent'));
}

async function click(url: string): Promise<number> {
  return (await openLink(url)).status;
}

describe('ask', () => {
  test('the service writes the question; a click on "approve" in Slack runs the tool once; the waiting send names the approval', async () => {
    const sessionId = await env.newSession(bundle({ http: { '*': 'ask' } }));
    env.fake.enqueue({ toolCalls: [refund(101)] }, { text: 'Refund filed.' });
    const before = received.length;
    // A waiting send answers at once with what it waits for.
    const waiting = await call<{ status: string; waitingFor: { kind: string; approvalId: string; question: string; options: string[] } }>(
      `${env.api.url}/session/${sessionId}`,
      { headers: env.user.auth, json: { parts: [{ type: 'text', text: 'Please refund order 101, it arrived broken' }] } },
    );
    expect(waiting.body).toMatchObject({ status: 'waiting', waitingFor: { kind: 'approval', options: ['approve', 'deny'] } });
    const question = waiting.body.waitingFor.question;
    expect(question).toContain('wants to run the tool "http_request" of the built-in tool server "http"');
    expect(question).toContain(`"url": "${target}"`);
    expect(question).toContain('"body": "order 101"');
    expect(question).toContain('Please refund order 101, it arrived broken');
    expect(received.length).toBe(before);

    const posted = await slackPostFor(waiting.body.waitingFor.approvalId);
    expect(buttonText(posted)).toEqual(['approve', 'deny']);
    expect(await click(linksOf(posted)[0]!)).toBe(200);
    const events = await ended(sessionId);
    expect(events.at(-1)).toMatchObject({ type: 'turn.completed' });
    expect(received.slice(before)).toEqual([{ body: 'order 101', key: expect.stringMatching(/^[0-9a-f]{32}$/) }]);
    expect(toolResults(events)[0]).toMatchObject({ toolName: 'http_request', output: { status: 200, body: 'done: order 101' } });
  });

  test('a Slack thread reply "2 <note>" denies: the model is told the denial and the note; nothing is sent', async () => {
    const sessionId = await env.newSession(bundle({ http: { http_request: 'ask' } }, 'reply', 'C0POLICY02'));
    env.fake.enqueue({ toolCalls: [refund(202)] }, { text: 'Not refunded.' });
    const before = received.length;
    await sendAsync(sessionId, 'refund order 202');
    const [requested] = await requestedIn(sessionId, 1);
    // A reply-mode message carries no links; its question names the order.
    const posted = await slackPostAbout(202);
    await sentRecorded(requested!.approvalId);
    const ts = (posted.answer as { ts: string }).ts;
    const body = JSON.stringify({
      type: 'event_callback',
      team_id: 'T0TEST',
      event_id: `Ev${randomUUID().slice(0, 8)}`,
      event: {
        type: 'message',
        channel: 'C0POLICY02',
        user: 'U0HUMAN1',
        text: '2 customer already got a voucher',
        ts: `1700009999.${Date.now() % 1_000_000}`,
        thread_ts: ts,
      },
    });
    const timestamp = String(Math.floor(Date.now() / 1000));
    const answered = await call<{ answered: boolean }>(`${env.api.url}/inbound/slack`, {
      headers: {
        'content-type': 'application/json',
        'x-slack-request-timestamp': timestamp,
        'x-slack-signature': slackSignature(SIGNING, timestamp, body),
      },
      body,
    });
    expect(answered.body).toMatchObject({ answered: true });
    const events = await ended(sessionId);
    expect(toolResults(events)[0]).toMatchObject({
      isError: true,
      output: 'The user denied this call of "http_request", with the note: customer already got a voucher. The tool was not run.',
    });
    expect(received.length).toBe(before);
    // The model's next request reads the denial.
    expect(JSON.stringify(env.fake.requests.at(-1)!.body)).toContain('customer already got a voucher');
  });

  test('several calls in one step: one approval each, answered in reverse order; each approved call runs once', async () => {
    const sessionId = await env.newSession(bundle({ http: { '*': 'ask' } }, 'signed-url', 'C0POLICY03'));
    env.fake.enqueue(
      { toolCalls: [refund(301), refund(302), { id: 'call_t', name: 'current_time', arguments: {} }] },
      { text: 'Both handled.' },
    );
    const before = received.length;
    await sendAsync(sessionId, 'refund orders 301 and 302');
    const requested = await requestedIn(sessionId, 2);
    expect(new Set(requested.map((event) => event.toolCallId))).toEqual(new Set(['call_301', 'call_302']));
    // The second is answered first; the first is denied after.
    expect(await click(linksOf(await slackPostAbout(302))[0]!)).toBe(200);
    await env.waitForEvents(sessionId, (events) => events.some((event) => event.type === 'approval.answered'));
    expect(await click(linksOf(await slackPostAbout(301))[1]!)).toBe(200);
    const events = await ended(sessionId);
    expect(events.at(-1)).toMatchObject({ type: 'turn.completed' });
    expect(received.slice(before).map((got) => got.body)).toEqual(['order 302']);
    const results = toolResults(events);
    expect(results.map((result) => [result.toolCallId, result.isError === true])).toEqual([
      ['call_301', true],
      ['call_302', false],
      ['call_t', false],
    ]);
  });

  test('answered through two channels at once, the approved tool runs once', async () => {
    const channels = bundle({ http: { '*': 'ask' } }, 'signed-url', 'C0POLICY04');
    channels.userChannels.push({
      provider: 'slack',
      answerVia: 'signed-url',
      config: { token: '{{secrets.POLICY_SLACK_TOKEN}}', channel: 'C0POLICY05' },
    });
    const sessionId = await env.newSession(channels);
    env.fake.enqueue({ toolCalls: [refund(401)] }, { text: 'Filed once.' });
    const before = received.length;
    await sendAsync(sessionId, 'refund order 401');
    const [requested] = await requestedIn(sessionId, 1);
    const deadline = Date.now() + 10_000;
    let posts: SlackCall[] = [];
    while (posts.length < 2 && Date.now() < deadline) {
      posts = slack.calls.filter((posted) => linksOf(posted).some((url) => url.includes(requested!.approvalId)));
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect(posts.map((posted) => posted.body?.channel)).toEqual(['C0POLICY04', 'C0POLICY05']);
    const statuses = await Promise.all(posts.map((posted) => openLink(linksOf(posted)[0]!)));
    expect(statuses.map((response) => response.status).sort()).toEqual([200, 409]);
    const events = await ended(sessionId);
    expect(events.at(-1)).toMatchObject({ type: 'turn.completed' });
    expect(received.slice(before).map((got) => got.body)).toEqual(['order 401']);
  });
});

describe('never and always', () => {
  test('a "never" tool is refused without running; a tool of the same server set to "always" runs at once', async () => {
    const sessionId = await env.newSession(bundle({ http: { http_request: 'never' }, time: { '*': 'always' } }));
    env.fake.enqueue({ toolCalls: [refund(501), { id: 'call_t', name: 'current_time', arguments: {} }] }, { text: 'Refused.' });
    const before = received.length;
    const answer = await call<{ status: string }>(`${env.api.url}/session/${sessionId}`, {
      headers: env.user.auth,
      json: { parts: [{ type: 'text', text: 'refund order 501' }] },
    });
    expect(answer.body).toMatchObject({ status: 'completed' });
    const results = toolResults(await env.events(sessionId));
    expect(results[0]).toMatchObject({
      isError: true,
      output: expect.stringMatching(/policy refuses the tool "http_request" \(toolPolicies: "never"\)/),
    });
    expect(results[1]).not.toHaveProperty('isError');
    expect(received.length).toBe(before);
  });

  test('a deploy refuses a policy for a server the bundle does not enable, or a tool it does not have', async () => {
    const deploy = await call<{ ok: boolean; errors: { path: string; message: string }[] }>(`${env.api.url}/deploy`, {
      headers: env.user.auth,
      json: {
        name: `policy-${randomUUID().slice(0, 8)}`,
        model: { providerId: 'openai-compatible', modelId: 'fake-model' },
        mcps: ['http'],
        toolPolicies: { http: { fetch: 'ask' }, memory: { '*': 'never' }, time: { '*': 'sometimes' } },
      },
    });
    expect(deploy.status).toBe(400);
    expect(deploy.body.errors.map((error) => error.path).sort()).toEqual([
      '/toolPolicies/http/fetch',
      '/toolPolicies/memory',
      '/toolPolicies/time/*',
    ]);
  });
});
