// Records approvals a team answers: one asked through the API of two approvers with a quorum of 2, a
// reminder and an escalation (each approver asked at a webhook address, the escalated one too), decided
// by the approvers' votes; and a turn whose tool policy asks a team, resumed by the deciding vote. Each
// history closes when its workflow ends (the session's when the idle session ends). And an escalation to
// "me", which asks on the user's own channel; and an approver asked in Slack, whose message's thread gets
// the outcome (the approval's and its notice's histories).
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startAgentEnv, type AgentEnv } from '../../helpers/harness/agent-env.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../../helpers/fakes/webhook-receiver.ts';
import { startFakeSlack, type FakeSlack } from '../../helpers/fakes/fake-slack.ts';
import { call } from '../../helpers/client/request.ts';
import { approvalNoticeWorkflowId, approvalWorkflowId, sessionWorkflowId } from '../../../lib/workflow-safe/workflow-ids.ts';
import type { SessionEvent } from '../../../contract/events.ts';
import { recorder, type Recorder } from './recorder.ts';
import { RECORDING_ENV } from './recording-env.ts';

let env: AgentEnv;
let hooks: WebhookReceiver;
let slack: FakeSlack;
let record: Recorder;
beforeAll(async () => {
  hooks = await startWebhookReceiver();
  slack = await startFakeSlack();
  env = await startAgentEnv({
    ...RECORDING_ENV,
    OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8',
    SESSION_IDLE_MS: '1000',
    SLACK_API_BASE_URL: slack.baseUrl,
  });
  for (const name of ['rec-alice', 'rec-bob', 'rec-carol']) {
    const put = await call(`${env.api.url}/approver/${name}`, {
      method: 'PUT',
      headers: env.user.auth,
      json: { webhook: { url: `${hooks.url}/${name}` } },
    });
    expect(put.status).toBeLessThan(300);
  }
  record = recorder(env.worker.client, [env.user.apiKey]);
});
afterAll(async () => {
  await env?.close();
  await hooks?.close();
  await slack?.close();
});

interface TeamApproval {
  id: string;
  approvers: Array<{ name: string; links: { page: string } }>;
}

const readApproval = async (id: string) => (await call<TeamApproval>(`${env.api.url}/approval/${id}`, { headers: env.user.auth })).body;

async function vote(id: string, name: string, choice: string): Promise<number> {
  const page = (await readApproval(id)).approvers.find((seat) => seat.name === name)!.links.page;
  return (await call(page, { headers: { accept: 'application/json' }, json: { choice } })).status;
}

test('approvalWorkflow: approvers with a reminder and an escalation, decided by the quorum', async () => {
  if (!record.wanted('approvalWorkflow', 'team-reminded-escalated-decided')) return;
  const created = await call<TeamApproval>(`${env.api.url}/approval`, {
    headers: env.user.auth,
    json: {
      question: 'Release the payout batch?',
      options: ['approve', 'deny'],
      approvers: ['rec-alice', 'rec-bob'],
      quorum: 2,
      remind: { everyMs: 1_000 },
      escalate: [{ afterMs: 1_500, to: ['rec-carol'] }],
    },
  });
  expect(created.status).toBe(201);
  const id = created.body.id;
  const askedCarol = () => hooks.requests.some((request) => request.path.endsWith('/rec-carol') && request.body.includes(id));
  for (let waited = 0; !askedCarol(); waited += 50) {
    if (waited > 15_000) throw new Error('the escalated approver was not asked');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  expect(await vote(id, 'rec-alice', 'approve')).toBe(202);
  expect(await vote(id, 'rec-carol', 'approve')).toBe(200);
  await record.closed(approvalWorkflowId(id), 'approvalWorkflow', 'team-reminded-escalated-decided');
});

test('sessionWorkflow: a tool policy that asks a team, resumed by the deciding vote', async () => {
  if (!record.wanted('sessionWorkflow', 'team-tool-approval-approved')) return;
  const sessionId = await env.newSession({
    mcps: ['time'],
    toolPolicies: { time: { current_time: { ask: { approvers: ['me', 'rec-alice'], quorum: 2, validForMs: 600_000 } } } },
  });
  env.fake.enqueue({ toolCalls: [{ id: 'call_time', name: 'current_time', arguments: {} }] }, { text: 'It is late.' });
  const sent = await call(`${env.api.url}/session/${sessionId}?async=1`, {
    headers: env.user.auth,
    json: { parts: [{ type: 'text', text: 'time?' }] },
  });
  expect(sent.status).toBe(202);
  const events = await env.waitForEvents(sessionId, (all) => all.some((event) => event.type === 'approval.requested'));
  const approvalId = (events.find((event) => event.type === 'approval.requested') as Extract<SessionEvent, { type: 'approval.requested' }>)
    .approvalId;
  expect((await call(`${env.api.url}/approval/${approvalId}/answer`, { headers: env.user.auth, json: { choice: 'approve' } })).status).toBe(
    202,
  );
  expect(await vote(approvalId, 'rec-alice', 'approve')).toBe(200);
  await env.waitForEvents(sessionId, (all) => all.some((event) => event.type === 'turn.completed'));
  await record.closed(approvalWorkflowId(approvalId), 'approvalWorkflow', 'team-tool-approval-decided');
  await record.closed(sessionWorkflowId(sessionId), 'sessionWorkflow', 'team-tool-approval-approved');
});

test("approvalWorkflow: an escalation to 'me' asks on the user's own channel, and the user decides", async () => {
  if (!record.wanted('approvalWorkflow', 'team-escalated-to-me-decided')) return;
  const { name } = await env.deploy({
    userChannels: [{ provider: 'webhook', answerVia: 'signed-url', config: { url: `${hooks.url}/own` } }],
  });
  const created = await call<TeamApproval>(`${env.api.url}/approval`, {
    headers: env.user.auth,
    json: {
      question: 'Extend the trial by a month?',
      agent: name,
      options: ['approve', 'deny'],
      approvers: ['rec-bob'],
      escalate: [{ afterMs: 1_000, to: ['me'] }],
    },
  });
  expect(created.status).toBe(201);
  const id = created.body.id;
  const askedMe = () => hooks.requests.some((request) => request.path.endsWith('/own') && request.body.includes(id));
  for (let waited = 0; !askedMe(); waited += 50) {
    if (waited > 15_000) throw new Error("the user's channel was not asked");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  expect((await call(`${env.api.url}/approval/${id}/answer`, { headers: env.user.auth, json: { choice: 'approve' } })).status).toBe(200);
  await record.closed(approvalWorkflowId(id), 'approvalWorkflow', 'team-escalated-to-me-decided');
});

test("approvalWorkflow: an approver asked in Slack; the outcome noted in their message's thread", async () => {
  if (!record.wanted('approvalWorkflow', 'team-slack-approver-outcome-noted')) return;
  const put = (path: string, json: unknown) => call(`${env.api.url}${path}`, { method: 'PUT', headers: env.user.auth, json });
  expect((await put('/secret/REC_SLACK_TOKEN', { value: 'xoxb-recording' })).status).toBeLessThan(300);
  expect((await put('/approver/rec-slacker', { slack: { userId: 'U0RECORD1' } })).status).toBeLessThan(300);
  const { name } = await env.deploy({
    secretGrants: ['REC_SLACK_TOKEN'],
    userChannels: [{ provider: 'slack', answerVia: 'signed-url', config: { token: '{{secrets.REC_SLACK_TOKEN}}', channel: 'C0RECORD1' } }],
  });
  const created = await call<TeamApproval>(`${env.api.url}/approval`, {
    headers: env.user.auth,
    json: { question: 'Archive the old project?', agent: name, options: ['approve', 'deny'], approvers: ['rec-slacker'] },
  });
  expect(created.status).toBe(201);
  const id = created.body.id;
  const asked = () =>
    slack.calls.some((request) => request.body?.channel === 'U0RECORD1' && request.raw.includes('Archive the old project'));
  for (let waited = 0; !asked(); waited += 50) {
    if (waited > 15_000) throw new Error('the approver was not asked in Slack');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  expect(await vote(id, 'rec-slacker', 'approve')).toBe(200);
  await record.closed(approvalWorkflowId(id), 'approvalWorkflow', 'team-slack-approver-outcome-noted');
  await record.closed(approvalNoticeWorkflowId(id, 'outcome'), 'approvalNoticeWorkflow', 'approver-threads-noted');
});
