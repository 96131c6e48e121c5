// Answer links reach only those allowed to answer. A signed link (or its token) answers an approval
// without a key, so it must not show where a `read` key looks (webhook event payloads, the delivery
// log, session events, approval listings) nor in Temporal history (readable in the Web UI); while
// the agent's channel still receives working links and a key with approvals:answer still gets them.
import { decodedHistory } from '../helpers/harness/decoded-history.ts';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { startAgentEnv, type AgentEnv } from '../helpers/harness/agent-env.ts';
import { startWebhookReceiver, type ReceivedRequest, type WebhookReceiver } from '../helpers/fakes/webhook-receiver.ts';
import { askInTurn } from '../helpers/harness/ask-in-turn.ts';
import { call } from '../helpers/client/request.ts';
import { openLink } from '../helpers/client/browser-headers.ts';
import { closeServer, readJsonRequest, sendJson } from '../helpers/fakes/recorded.ts';
import { approvalToken } from '../../lib/approval-token.ts';
import { loadMasterKey } from '../../lib/master-key.ts';
import { approvalWorkflowId, sessionWorkflowId } from '../../lib/workflow-safe/workflow-ids.ts';

let env: AgentEnv;
/** Receives the user's outbound webhook events (POST /webhook). */
let events: WebhookReceiver;
/** The agent's `webhook` userChannel: where the question goes, with its links. */
let channel: WebhookReceiver;
/** A Telegram API that refuses every message, quoting what it was sent (as some APIs' errors do). */
let echoingTelegram: Server;
let subscriptionId: string;
let reader: { authorization: string };

beforeAll(async () => {
  [events, channel] = await Promise.all([startWebhookReceiver(), startWebhookReceiver()]);
  echoingTelegram = createServer((req, res) => {
    void readJsonRequest(req).then(({ raw }) =>
      sendJson(res, 400, { ok: false, error_code: 400, description: `Bad Request: can't parse entities in ${raw}` }),
    );
  }).listen(0, '127.0.0.1');
  await new Promise((resolve) => echoingTelegram.once('listening', resolve));
  env = await startAgentEnv({
    OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8',
    WEBHOOK_RETRY_SCHEDULE_MS: '300,300',
    TELEGRAM_API_BASE_URL: `http://127.0.0.1:${(echoingTelegram.address() as AddressInfo).port}`,
  });
  const subscribed = await call<{ id: string }>(`${env.api.url}/webhook`, {
    headers: env.user.auth,
    json: { url: events.url, events: ['approval.requested', 'approval.answered'] },
  });
  subscriptionId = subscribed.body.id;
  const minted = await call<{ key: string }>(`${env.api.url}/key`, { headers: env.user.auth, json: { name: 'reader', scopes: ['read'] } });
  reader = { authorization: `Bearer ${minted.body.key}` };
});

afterAll(async () => {
  await env?.close();
  await Promise.all([events?.close(), channel?.close(), echoingTelegram && closeServer(echoingTelegram)]);
});

interface Links {
  page: string;
  options: Array<{ option: string; url: string }>;
}

/** The token the service signs for this approval, computed as the service does. */
const tokenOf = (approvalId: string) => approvalToken(loadMasterKey(env.api.config), approvalId);

/** What the test looks for: the token itself, and any answer link at all. */
function expectNoAnswer(text: string, approvalId: string, where: string): void {
  expect(text, where).not.toContain(tokenOf(approvalId));
  expect(text, where).not.toMatch(/\/answer\?/);
  expect(text, where).not.toMatch(/"links"/);
}

/** A quoted link may stay, its token replaced: `/approval/[token]/answer` answers nothing. */
function expectNoToken(text: string, approvalId: string, where: string): void {
  expect(text, where).not.toContain(tokenOf(approvalId));
  expect(text, where).not.toMatch(/\/approval\/apr_[0-9a-z]+\.[0-9a-z]+\/answer/);
}

function waitFor<T>(what: string, find: () => Promise<T | undefined> | T | undefined, timeoutMs = 20_000): Promise<T> {
  return vi.waitFor(
    async () => {
      const found = await find();
      if (found === undefined) throw new Error(`${what} did not happen within ${timeoutMs} ms`);
      return found;
    },
    { timeout: timeoutMs, interval: 50 },
  );
}

const requestAbout = (receiver: WebhookReceiver, approvalId: string, type?: string) =>
  waitFor(`a request about ${approvalId}`, () =>
    receiver.requests.find((request) => request.body.includes(approvalId) && (type === undefined || request.body.includes(type))),
  );

/** A workflow's whole history as text, every payload decrypted and decoded (history holds them as encrypted bytes). */
async function historyText(workflowId: string): Promise<string> {
  const history = await decodedHistory(await env.worker.client.workflow.getHandle(workflowId).fetchHistory());
  return JSON.stringify(history, (key, value: unknown) => {
    if (value instanceof Uint8Array) return Buffer.from(value).toString('utf8');
    if (key === 'data' && typeof value === 'string') return Buffer.from(value, 'base64').toString('utf8');
    return value;
  });
}

/**
 * Checked once the channel was sent and the approval answered, so everything that happens is in them.
 * `shows` is a value each history holds in some payload: proof that the decoding works.
 */
async function expectHistoriesClean(approvalId: string, histories: Array<{ workflowId: string; shows: string }>): Promise<void> {
  for (const { workflowId, shows } of histories) {
    const text = await historyText(workflowId);
    expect(text, workflowId).toContain(shows);
    expectNoAnswer(text, approvalId, `history of ${workflowId}`);
  }
}

async function sentDispatch(approvalId: string): Promise<void> {
  await waitFor('the channel dispatch to be sent', async () => {
    const approval = await call<{ dispatches: Array<{ status: string }> }>(`${env.api.url}/approval/${approvalId}`, {
      headers: env.user.auth,
    });
    return approval.body.dispatches.every((dispatch) => dispatch.status === 'sent') ? true : undefined;
  });
}

async function click(url: string): Promise<void> {
  const response = await openLink(url);
  expect(response.status, response.text).toBe(200);
}

const channelBundle = () => ({ userChannels: [{ provider: 'webhook', answerVia: 'signed-url', config: { url: channel.url } }] });

describe('read-scope surfaces', () => {
  test('approval.requested webhook payloads and the delivery log carry no link; a read key sees none anywhere', async () => {
    const created = await call<{ id: string; token: string; links: Links }>(`${env.api.url}/approval`, {
      headers: env.user.auth,
      json: { question: 'Publish the release notes?', options: ['publish', 'hold'] },
    });
    expect(created.status).toBe(201);
    const approvalId = created.body.id;
    // The key that may answer gets the links.
    expect(created.body.token).toBe(tokenOf(approvalId));
    expect(created.body.links.options.map((link) => link.option)).toEqual(['publish', 'hold']);

    const delivered: ReceivedRequest = await requestAbout(events, approvalId, 'approval.requested');
    const payload = JSON.parse(delivered.body) as { type: string; data: Record<string, unknown> };
    expect(payload).toMatchObject({ type: 'approval.requested', data: { approvalId, question: 'Publish the release notes?' } });
    expectNoAnswer(delivered.body, approvalId, 'the delivered approval.requested');

    const log = await call<{ deliveries: Array<{ type: string; payload: { data: { approvalId?: string } } }> }>(
      `${env.api.url}/webhook/${subscriptionId}/deliveries`,
      { headers: reader },
    );
    expect(log.status).toBe(200);
    expect(log.body.deliveries.some((delivery) => delivery.payload.data.approvalId === approvalId)).toBe(true);
    expectNoAnswer(log.text, approvalId, 'the delivery log');

    const one = await call(`${env.api.url}/approval/${approvalId}`, { headers: reader });
    expect(one.status).toBe(200);
    expectNoAnswer(one.text, approvalId, 'GET /approval/<id> with read');
    const listed = await call(`${env.api.url}/approval?limit=200`, { headers: reader });
    expect(listed.text).toContain(approvalId);
    expectNoAnswer(listed.text, approvalId, 'GET /approval with read');
  });

  test('session events and dispatch records of an asked question show no link to a read key', async () => {
    const { sessionId, requested } = await askInTurn(env, { bundle: channelBundle(), input: { question: 'Restart the cache?' } });
    await sentDispatch(requested.approvalId);
    const sessionEvents = await call(`${env.api.url}/session/${sessionId}/events?limit=1000`, { headers: reader });
    expect(sessionEvents.text).toContain(requested.approvalId);
    expectNoAnswer(sessionEvents.text, requested.approvalId, 'session events');
    const one = await call(`${env.api.url}/approval/${requested.approvalId}`, { headers: reader });
    expect(one.text).toContain('"dispatches"');
    expectNoAnswer(one.text, requested.approvalId, 'dispatches');
    // The turn ends, so the fake model's next reply goes to the next test's turn.
    const answered = await call(`${env.api.url}/approval/${requested.approvalId}/answer`, {
      headers: env.user.auth,
      json: { choice: 'no' },
    });
    expect(answered.status).toBe(200);
    await env.waitForEvents(sessionId, (list) => list.some((event) => event.type === 'turn.completed'));
  });
});

describe('Temporal history', () => {
  test('POST /approval: the channel gets working links, the API gives them to a key that may answer, history holds none', async () => {
    const { name } = await env.deploy(channelBundle());
    const created = await call<{ id: string; token: string; links: Links }>(`${env.api.url}/approval`, {
      headers: env.user.auth,
      json: { question: 'Rotate the signing key tonight?', options: ['rotate', 'wait'], agent: name },
    });
    expect(created.status).toBe(201);
    const approvalId = created.body.id;
    expect(created.body.token).toBe(tokenOf(approvalId));

    const sent = JSON.parse((await requestAbout(channel, approvalId)).body) as { links: Links };
    expect(sent.links).toEqual(created.body.links);
    expect(sent.links.options[1]!.url).toContain(tokenOf(approvalId));
    await sentDispatch(approvalId);

    await click(sent.links.options[1]!.url);
    const answered = await call<{ status: string; choice: string }>(`${env.api.url}/approval/${approvalId}`, { headers: env.user.auth });
    expect(answered.body).toMatchObject({ status: 'answered', choice: 'wait' });
    await requestAbout(events, approvalId, 'approval.answered');
    // The answer's signal is sent after the answer: its history is read once it holds it (the workflow ended).
    await waitFor('the approval workflow to end', async () => {
      const described = await env.worker.client.workflow.getHandle(approvalWorkflowId(approvalId)).describe();
      return described.status.name === 'COMPLETED' ? true : undefined;
    });
    await expectHistoriesClean(approvalId, [{ workflowId: approvalWorkflowId(approvalId), shows: 'Rotate the signing key tonight?' }]);
  });

  test('ask_my_user in a turn: no token in the approval workflow or in the session workflow its turn ran in', async () => {
    const { sessionId, requested } = await askInTurn(env, {
      bundle: channelBundle(),
      input: { question: 'Drop the staging database?', options: ['drop', 'keep'] },
    });
    const approvalId = requested.approvalId;
    const sent = JSON.parse((await requestAbout(channel, approvalId)).body) as { links: Links };
    expect(sent.links.options[0]!.url).toContain(tokenOf(approvalId));
    await sentDispatch(approvalId);

    await click(sent.links.options[1]!.url);
    const all = await env.waitForEvents(sessionId, (list) => list.some((event) => event.type === 'turn.completed'));
    expect(all.find((event) => event.type === 'tool.result')).toMatchObject({ output: { choice: 'keep' } });
    // The turn ran in the session workflow: the approval's id is there, its token is not.
    await expectHistoriesClean(approvalId, [
      { workflowId: approvalWorkflowId(approvalId), shows: 'Drop the staging database?' },
      { workflowId: sessionWorkflowId(sessionId), shows: approvalId },
    ]);
  });
});

describe('a channel error that quotes the message', () => {
  test('is recorded and thrown with the token replaced: not in the dispatch, not in history', async () => {
    const tokenKey = `TG_TOKEN_${randomUUID().replace(/-/g, '').slice(0, 10).toUpperCase()}`;
    expect(
      (await call(`${env.api.url}/secret/${tokenKey}`, { method: 'PUT', headers: env.user.auth, json: { value: '123:abc' } })).status,
    ).toBeLessThan(300);
    const { name } = await env.deploy({
      secretGrants: [tokenKey],
      userChannels: [{ provider: 'telegram', answerVia: 'signed-url', config: { botToken: `{{secrets.${tokenKey}}}`, chatId: 42 } }],
    });
    const created = await call<{ id: string }>(`${env.api.url}/approval`, {
      headers: env.user.auth,
      json: { question: 'Pause the nightly export?', agent: name },
    });
    const approvalId = created.body.id;
    const dispatch = await waitFor('the dispatch to fail', async () => {
      const approval = await call<{ dispatches: Array<{ status: string; error: string | null }> }>(
        `${env.api.url}/approval/${approvalId}`,
        {
          headers: env.user.auth,
        },
      );
      return approval.body.dispatches[0]?.status === 'failed' ? approval.body.dispatches[0] : undefined;
    });
    // The provider's words are kept (they say what went wrong), the token is not.
    expect(dispatch.error).toContain("can't parse entities");
    expect(dispatch.error).toContain('[token]');
    expectNoToken(JSON.stringify(dispatch), approvalId, 'the failed dispatch');

    const answered = await call(`${env.api.url}/approval/${approvalId}/answer`, { headers: env.user.auth, json: { choice: 'no' } });
    expect(answered.status).toBe(200);
    await waitFor('the approval workflow to end', async () => {
      const described = await env.worker.client.workflow.getHandle(approvalWorkflowId(approvalId)).describe();
      return described.status.name === 'COMPLETED' ? true : undefined;
    });
    const text = await historyText(approvalWorkflowId(approvalId));
    expect(text).toContain("can't parse entities");
    expectNoToken(text, approvalId, 'history with the failed dispatch');
  });
});
