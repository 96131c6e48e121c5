// Records workflow graph runs and trigger firings: a run paused at its approval node, then resumed by
// an answer; a run whose approval expires and follows `onExpired`; the turn of a graph's agent node (the
// one place a turn still runs as a workflow of its own, a child of the run); the trigger run that starts
// a graph run through the API; a webhook trigger firing; and a cron trigger's schedule reconciled and fired.
import { afterAll, beforeAll, expect, test, vi } from 'vitest';
import { startAgentEnv, type AgentEnv } from '../../helpers/harness/agent-env.ts';
import { lastUserText } from '../../helpers/fakes/fake-model.ts';
import { reviewBundle } from '../../helpers/harness/bundles.ts';
import { call } from '../../helpers/client/request.ts';
import {
  approvalWorkflowId,
  graphRunWorkflowId,
  scheduleId,
  schedulesWorkflowId,
  triggerRunWorkflowId,
  turnWorkflowId,
} from '../../../lib/workflow-safe/workflow-ids.ts';
import type { SessionEvent } from '../../../contract/events.ts';
import { EventType, hasEvent, recorder, type Recorder } from './recorder.ts';
import { RECORDING_ENV } from './recording-env.ts';
import { deleteSchedules } from '../../helpers/harness/schedules.ts';

let env: AgentEnv;
let record: Recorder;
const schedules: string[] = [];
beforeAll(async () => {
  env = await startAgentEnv({ ...RECORDING_ENV, OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8' });
  env.fake.setHandler((request) => ({ text: `Done: ${lastUserText(request) ?? ''}` }));
  record = recorder(env.worker.client, [env.user.apiKey]);
});
afterAll(async () => {
  if (env) await deleteSchedules(env.worker.client, schedules);
  await env?.close();
});

async function startRun(expiresInMs: number): Promise<{ sessionId: string; runId: string }> {
  const { name } = await env.deploy(reviewBundle(expiresInMs));
  const started = await call<{ sessionId: string; runId: string }>(`${env.api.url}/agent/${name}/workflow/review`, {
    headers: env.user.auth,
    json: { input: 'My order 1042 arrived broken' },
  });
  expect(started.status).toBe(202);
  return started.body;
}

const runEnded = (events: SessionEvent[]) =>
  events.some((event) => event.type === 'workflow.completed' || event.type === 'workflow.failed');

test('graphRunWorkflow, triggerRunWorkflow: a run paused at its approval node, then answered "yes"', async () => {
  if (!record.wanted('graphRunWorkflow', 'approval-answered-completed')) return;
  const { sessionId, runId } = await startRun(600_000);
  const events = await env.waitForEvents(sessionId, (all) => all.some((event) => event.type === 'approval.requested'));
  const requested = events.find((event) => event.type === 'approval.requested') as Extract<SessionEvent, { type: 'approval.requested' }>;
  await record.inFlight(graphRunWorkflowId(runId), 'graphRunWorkflow', 'paused-at-approval', (history) =>
    hasEvent(history, EventType.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_STARTED),
  );
  const answered = await call(`${env.api.url}/approval/${requested.approvalId}/answer`, {
    headers: env.user.auth,
    json: { choice: 'yes', note: 'mention the discount' },
  });
  expect(answered.status).toBe(200);
  await env.waitForEvents(sessionId, runEnded);
  await record.closed(graphRunWorkflowId(runId), 'graphRunWorkflow', 'approval-answered-completed');
  await record.closed(triggerRunWorkflowId(sessionId), 'triggerRunWorkflow', 'api-started-graph-run');
  await record.closed(approvalWorkflowId(requested.approvalId), 'approvalWorkflow', 'graph-node-answered');
});

test('graphRunWorkflow: the approval node expires and the run follows onExpired', async () => {
  if (!record.wanted('graphRunWorkflow', 'approval-expired-completed')) return;
  const { sessionId, runId } = await startRun(1_500);
  await env.waitForEvents(sessionId, runEnded);
  await record.closed(graphRunWorkflowId(runId), 'graphRunWorkflow', 'approval-expired-completed');
});

test("turnWorkflow: a graph's agent node, its turn a child of the run, completed", async () => {
  if (!record.wanted('turnWorkflow', 'graph-agent-node-completed')) return;
  const { name } = await env.deploy({
    workflows: { answer: { start: 'reply', nodes: { reply: { type: 'agent', prompt: 'Answer: {{input}}' } } } },
  });
  const started = await call<{ sessionId: string; runId: string }>(`${env.api.url}/agent/${name}/workflow/answer`, {
    headers: env.user.auth,
    json: { input: 'Where is order 1042?' },
  });
  expect(started.status).toBe(202);
  const { sessionId } = started.body;
  const events = await env.waitForEvents(sessionId, runEnded);
  expect(events.some((event) => event.type === 'workflow.completed')).toBe(true);
  const completed = events.find((event) => event.type === 'turn.completed') as Extract<SessionEvent, { type: 'turn.completed' }>;
  await record.closed(turnWorkflowId(sessionId, completed.turnId), 'turnWorkflow', 'graph-agent-node-completed');
});

test('triggerRunWorkflow: a webhook trigger fires and its turn runs', async () => {
  if (!record.wanted('triggerRunWorkflow', 'webhook-fired')) return;
  const { name } = await env.deploy({ triggers: [{ kind: 'webhook' }] });
  const agent = await call<{ triggers: Array<{ url: string }> }>(`${env.api.url}/agent/${name}`, { headers: env.user.auth });
  const fired = await call<{ sessionId: string }>(agent.body.triggers[0]!.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{"order": 1042}',
  });
  expect(fired.status).toBe(202);
  await env.waitForEvents(fired.body.sessionId, (events) => events.some((event) => event.type === 'turn.completed'));
  await record.closed(triggerRunWorkflowId(fired.body.sessionId), 'triggerRunWorkflow', 'webhook-fired');
});

test('schedulesWorkflow, triggerRunWorkflow: a cron trigger reconciled into a schedule, then fired', async () => {
  if (!record.wanted('triggerRunWorkflow', 'cron-fired')) return;
  // Never due while recording (midnight on January 1st): the firing is asked for.
  const { agentId } = await env.deploy({ triggers: [{ kind: 'cron', expression: '0 0 1 1 *', message: 'Check the queue' }] });
  const id = scheduleId(agentId, 0);
  schedules.push(id);
  await record.closed(schedulesWorkflowId(agentId), 'schedulesWorkflow', 'reconciled');
  const schedule = env.worker.client.schedule.getHandle(id);
  await schedule.trigger();
  const firing = await vi.waitFor(
    async () => {
      const action = (await schedule.describe()).info.recentActions[0]?.action;
      if (!action) throw new Error('the schedule has not fired yet');
      return action.workflow.workflowId;
    },
    { timeout: 10_000, interval: 200 },
  );
  await record.closed(firing, 'triggerRunWorkflow', 'cron-fired');
});
