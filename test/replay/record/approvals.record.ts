// Records approvals asked by ask_my_user inside a turn, which runs in its session workflow: one waiting
// (the session's turn and the approval both mid-wait), then answered through the API (which stores the
// answer and hands it over by signal), with its outcome noted in its Slack thread; one answered by its
// Update instead; and one whose default expiry fires (APPROVAL_DEFAULT_EXPIRY_MS: seven days in
// production, 1.5 s here, the same timer). Slack is a local fake; its bot token is a secret that must
// stay out of every history. Each session's history closes when the idle session ends.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startAgentEnv, type AgentEnv } from '../../helpers/harness/agent-env.ts';
import { askInTurn } from '../../helpers/harness/ask-in-turn.ts';
import { startFakeSlack, type FakeSlack } from '../../helpers/fakes/fake-slack.ts';
import { call } from '../../helpers/client/request.ts';
import { answerApprovalWorkflow } from '../../../clients/approval.ts';
import { approvalNoticeWorkflowId, approvalWorkflowId, sessionWorkflowId } from '../../../lib/workflow-safe/workflow-ids.ts';
import type { SessionEvent } from '../../../contract/events.ts';
import { EventType, hasEvent, recorder, type Recorder } from './recorder.ts';
import { RECORDING_ENV } from './recording-env.ts';

const SLACK_TOKEN = `xoxb-recording-${randomUUID()}`;

let env: AgentEnv;
let slack: FakeSlack;
let record: Recorder;
let bundle: Record<string, unknown>;
beforeAll(async () => {
  slack = await startFakeSlack();
  env = await startAgentEnv({
    ...RECORDING_ENV,
    OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8',
    SLACK_API_BASE_URL: slack.baseUrl,
    APPROVAL_DEFAULT_EXPIRY_MS: '1500',
    SESSION_IDLE_MS: '1000',
  });
  const tokenKey = `SLACK_TOKEN_${randomUUID().replace(/-/g, '').slice(0, 8).toUpperCase()}`;
  const stored = await call(`${env.api.url}/secret/${tokenKey}`, { method: 'PUT', headers: env.user.auth, json: { value: SLACK_TOKEN } });
  expect(stored.status).toBeLessThan(300);
  bundle = {
    secretGrants: [tokenKey],
    userChannels: [{ provider: 'slack', answerVia: 'signed-url', config: { token: `{{secrets.${tokenKey}}}`, channel: 'C0RECORD01' } }],
  };
  record = recorder(env.worker.client, [env.user.apiKey, SLACK_TOKEN]);
});
afterAll(async () => {
  await env?.close();
  await slack?.close();
});

const turnEnded = (events: SessionEvent[]) => events.some((event) => event.type === 'turn.completed');

test('approvalWorkflow, sessionWorkflow, approvalNoticeWorkflow: a turn waiting on ask_my_user, then answered through the API', async () => {
  if (!record.wanted('sessionWorkflow', 'approval-answered')) return;
  const { sessionId, requested } = await askInTurn(env, {
    bundle,
    input: { question: 'Refund 20 EUR to order 1234?', options: ['approve', 'reject'], expiresInMs: 600_000 },
    reply: 'Refunded.',
  });
  const approval = approvalWorkflowId(requested.approvalId);
  const session = sessionWorkflowId(sessionId);
  // Both wait: the approval on its answer or its expiry timer, the session's turn on its child.
  await slack.waitForCalls(1);
  await record.inFlight(approval, 'approvalWorkflow', 'waiting', (history) => hasEvent(history, EventType.EVENT_TYPE_TIMER_STARTED));
  await record.inFlight(session, 'sessionWorkflow', 'turn-waiting-on-approval', (history) =>
    hasEvent(history, EventType.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_STARTED),
  );
  const answered = await call(`${env.api.url}/approval/${requested.approvalId}/answer`, {
    headers: env.user.auth,
    json: { choice: 'approve', note: 'go ahead' },
  });
  expect(answered.status).toBe(200);
  await env.waitForEvents(sessionId, turnEnded);
  // The API stored the answer and handed it over by signal.
  await record.closed(approval, 'approvalWorkflow', 'answered-by-signal');
  await record.closed(session, 'sessionWorkflow', 'approval-answered');
  await record.closed(approvalNoticeWorkflowId(requested.approvalId, 'outcome'), 'approvalNoticeWorkflow', 'outcome-noted');
});

test('approvalWorkflow: answered by its Update (as the API hands a stored answer over), written by an activity scheduled with the acceptance', async () => {
  if (!record.wanted('approvalWorkflow', 'answered-after-acceptance')) return;
  const sentBefore = slack.calls.length;
  const { sessionId, requested } = await askInTurn(env, {
    bundle,
    input: { question: 'Archive the Q3 report?', options: ['archive', 'keep'], expiresInMs: 600_000 },
    reply: 'Archived.',
  });
  await slack.waitForCalls(sentBefore + 1);
  // The API answers by signal, once it stored the answer; its sweep hands a stored answer the workflow
  // did not take over as this Update (api/approvals/reconcile.ts).
  const answered = await answerApprovalWorkflow(env.worker.client, requested.approvalId, { choice: 'archive', note: null, via: 'api' });
  expect(answered.status).toBe('answered');
  await env.waitForEvents(sessionId, turnEnded);
  await record.closed(approvalWorkflowId(requested.approvalId), 'approvalWorkflow', 'answered-after-acceptance');
});

test('approvalWorkflow, sessionWorkflow: the default expiry fires and the turn goes on without an answer', async () => {
  if (!record.wanted('approvalWorkflow', 'expired-by-default')) return;
  const { sessionId, requested } = await askInTurn(env, {
    input: { question: 'Delete the old backups?', options: ['yes', 'no'] },
    reply: 'I left them.',
  });
  await env.waitForEvents(sessionId, turnEnded);
  await record.closed(approvalWorkflowId(requested.approvalId), 'approvalWorkflow', 'expired-by-default');
  await record.closed(sessionWorkflowId(sessionId), 'sessionWorkflow', 'approval-expired');
});
