// Approvals inside eval cases that replay recorded sessions: a tool's `ask` policy and ask_my_user take
// the answer the recording gave, at once, over no channel and to no webhook, and the tool runs (or is
// replayed, or refused) as it was then. A question the recording never asked is answered from nowhere:
// the model reads that no recorded answer exists. A run that runs unmatched calls live asks for real only
// for a tool safe to run; any other's approval is answered by the replay, and the tool does not run.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, onTestFinished } from 'vitest';
import { agentWithHooksTest } from '../helpers/harness/fixtures.ts';
import { runEval } from '../helpers/harness/evals.ts';
import type { AgentEnv } from '../helpers/harness/agent-env.ts';
import { call } from '../helpers/client/request.ts';
import { closeServer } from '../helpers/fakes/recorded.ts';
import { messageText } from '../helpers/fakes/fake-model.ts';
import type { SessionEvent } from '../../contract/events.ts';

const test = agentWithHooksTest({ OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8' }, ['approval.requested', 'approval.answered', 'session.completed']);
test.beforeEach(({ env }) => env.fake.reset());

const FAKE_MODEL = { providerId: 'openai-compatible', modelId: 'fake-model' };
const ASK = { question: 'Which size?', options: ['S', 'M', 'L'] };

/** A receiver of the agent's http calls, counting them. */
async function startReceiver(): Promise<{ url: string; bodies: string[] }> {
  const bodies: string[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      bodies.push(body);
      res.writeHead(200, { 'content-type': 'text/plain' }).end('refunded');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onTestFinished(() => closeServer(server));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/refund`, bodies };
}

async function deploy(env: AgentEnv, name: string): Promise<void> {
  const deployed = await call(`${env.api.url}/deploy`, {
    headers: env.user.auth,
    json: { name, model: FAKE_MODEL, instructions: 'Refund.', mcps: ['http'], toolPolicies: { http: { http_request: 'ask' } } },
  });
  expect(deployed.status, deployed.text).toBeLessThan(300);
}

/** A recorded session: its turn asks, is answered `choice` by API, and ends. */
async function recordSession(env: AgentEnv, name: string, toolCall: { name: string; arguments: unknown }, choice: string) {
  const session = await call<{ id: string }>(`${env.api.url}/agent/${name}/session`, { headers: env.user.auth, json: {} });
  env.fake.enqueue({ toolCalls: [{ id: `rec-${choice}`, ...toolCall }] }, { text: `Recorded: ${choice}.` });
  const sent = await call(`${env.api.url}/session/${session.body.id}?async=1`, {
    headers: env.user.auth,
    json: { parts: [{ type: 'text', text: `Please (${choice})` }] },
  });
  expect(sent.status, sent.text).toBe(202);
  const asked = await env.waitForEvents(session.body.id, (all) => all.some((event) => event.type === 'approval.requested'));
  const requested = asked.find((event) => event.type === 'approval.requested') as Extract<SessionEvent, { type: 'approval.requested' }>;
  const answered = await call(`${env.api.url}/approval/${requested.approvalId}/answer`, {
    headers: env.user.auth,
    json: { choice, note: `said ${choice}` },
  });
  expect(answered.status, answered.text).toBe(200);
  await env.waitForEvents(session.body.id, (all) => all.some((event) => event.type === 'turn.completed'));
  return session.body.id;
}

/** The answers the case's session recorded for its approvals. */
async function answersIn(env: AgentEnv, sessionId: string) {
  const events = await env.events(sessionId);
  return events
    .filter((event): event is Extract<SessionEvent, { type: 'approval.answered' }> => event.type === 'approval.answered')
    .map((event) => ({ choice: event.choice, via: event.via }));
}

test('each approval takes the recorded answer at once: an approved call replays its result, a denied one runs nothing, ask_my_user hears the recorded choice; no webhook tells of them', async ({
  env,
  hooks,
}) => {
  const receiver = await startReceiver();
  const name = `agent-${crypto.randomUUID().slice(0, 8)}`;
  await deploy(env, name);
  const refund = { name: 'http_request', arguments: { url: receiver.url, method: 'POST', body: '{"order":7}' } };
  const approved = await recordSession(env, name, refund, 'approve');
  const denied = await recordSession(env, name, { ...refund, arguments: { ...refund.arguments, body: '{"order":8}' } }, 'deny');
  const asked = await recordSession(env, name, { name: 'ask_my_user', arguments: ASK }, 'M');
  expect(receiver.bodies).toEqual(['{"order":7}']);
  const recordedHooks = hooks.requests.length;

  // The candidate does what the recordings did; one case at a time, so the fake's replies go in order.
  env.fake.enqueue(
    { toolCalls: [{ id: 'c1', ...refund }] },
    { text: 'Refunded 7.' },
    { toolCalls: [{ id: 'c2', ...refund, arguments: { ...refund.arguments, body: '{"order":8}' } }] },
    { text: 'Not refunded 8.' },
    { toolCalls: [{ id: 'c3', name: 'ask_my_user', arguments: ASK }] },
    { text: 'Size M it is.' },
  );
  const run = await runEval(env, name, { fromSessions: [approved, denied, asked], concurrency: 1 });

  expect(run.summary).toMatchObject({ cases: 3, errors: 0, pending: 0 });
  expect(run.cases.map((evalCase) => evalCase.transcript?.reply)).toEqual(['Refunded 7.', 'Not refunded 8.', 'Size M it is.']);
  expect(await answersIn(env, run.cases[0]!.sessionId!)).toEqual([{ choice: 'approve', via: 'replay' }]);
  expect(await answersIn(env, run.cases[1]!.sessionId!)).toEqual([{ choice: 'deny', via: 'replay' }]);
  expect(await answersIn(env, run.cases[2]!.sessionId!)).toEqual([{ choice: 'M', via: 'replay' }]);
  // Nothing ran: the approved call got its recorded result, the denied one was not made.
  expect(receiver.bodies).toEqual(['{"order":7}']);
  expect(run.cases[0]!.transcript!.toolCalls).toMatchObject([{ name: 'http_request', replayed: true }]);
  // The model heard the recorded choice, with the recorded note.
  const afterAsk = env.fake.requests.at(-1)!.body.messages.find((message) => message.role === 'tool');
  expect(messageText(afterAsk)).toContain('"choice":"M"');
  expect(messageText(afterAsk)).toContain('said M');
  // No webhook tells of the cases' sessions: the subscriber heard only the recordings.
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  const caseSessions = new Set<string | null | undefined>(run.cases.map((evalCase) => evalCase.sessionId));
  const told = hooks.requests.slice(recordedHooks).map((request) => (JSON.parse(request.body) as { data: { sessionId?: string } }).data);
  expect(told.filter((data) => caseSessions.has(data.sessionId))).toEqual([]);
});

test('a question the recording never asked is answered with no recorded answer, and the model reads why', async ({ env }) => {
  const name = `agent-${crypto.randomUUID().slice(0, 8)}`;
  await deploy(env, name);
  const asked = await recordSession(env, name, { name: 'ask_my_user', arguments: ASK }, 'S');
  env.fake.enqueue(
    { toolCalls: [{ id: 'c4', name: 'ask_my_user', arguments: { question: 'Which colour?', options: ['red', 'blue'] } }] },
    { text: 'Unsure.' },
  );
  const run = await runEval(env, name, { fromSessions: [asked] });

  const [only] = run.cases;
  expect(only!.transcript).toMatchObject({ reply: 'Unsure.', toolCalls: [{ name: 'ask_my_user', unmatched: true }] });
  expect(await answersIn(env, only!.sessionId!)).toEqual([{ choice: '(no recorded answer)', via: 'replay' }]);
  const toolMessage = env.fake.requests.at(-1)!.body.messages.find((message) => message.role === 'tool');
  expect(messageText(toolMessage)).toContain('which asked no such question');
});

test('with unmatched calls run live, an unmatched call of a tool not marked safe asks nobody and runs nothing', async ({ env }) => {
  const receiver = await startReceiver();
  const name = `agent-${crypto.randomUUID().slice(0, 8)}`;
  await deploy(env, name);
  const refund = (body: string) => ({ name: 'http_request', arguments: { url: receiver.url, method: 'POST', body } });
  const recorded = await recordSession(env, name, refund('a'), 'approve');
  expect(receiver.bodies).toEqual(['a']);
  env.fake.enqueue({ toolCalls: [{ id: 'c5', ...refund('b') }] }, { text: 'Not sent.' });
  const run = await runEval(env, name, { fromSessions: [recorded], unmatched: 'live' });

  const [only] = run.cases;
  expect(only!.transcript).toMatchObject({ reply: 'Not sent.', toolCalls: [{ name: 'http_request', unmatched: true }] });
  expect(await answersIn(env, only!.sessionId!)).toEqual([{ choice: 'approve', via: 'replay' }]);
  const toolMessage = env.fake.requests.at(-1)!.body.messages.find((message) => message.role === 'tool');
  expect(messageText(toolMessage)).toContain('not marked safe to run in an eval');
  expect(receiver.bodies).toEqual(['a']);
});
