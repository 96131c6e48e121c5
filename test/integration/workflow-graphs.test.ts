// Workflow graphs end to end: POST /agent/<name>/workflow/<wf> (or a webhook trigger naming the
// workflow) opens a fresh session whose run walks the graph: agent nodes are turns with rendered
// prompts, approval nodes wait durably (across a worker restart) and branch on the answer or on
// expiry, end nodes complete the run. GET /run/<id> shows the record; the session's events tell
// the story; a failed turn fails the run.
import { describe, expect, vi } from 'vitest';
import type { AgentEnv } from '../helpers/harness/agent-env.ts';
import { agentTest } from '../helpers/harness/fixtures.ts';
import { reviewBundle } from '../helpers/harness/bundles.ts';
import { lastUserText, type FakeRequest } from '../helpers/fakes/fake-model.ts';
import { createTestUser } from '../helpers/harness/users.ts';
import { call } from '../helpers/client/request.ts';
import type { SessionEvent } from '../../contract/events.ts';
import { graphRunWorkflowId } from '../../lib/workflow-safe/workflow-ids.ts';
import { runningListedWorkflowIds } from '../../workers/dead-worker-recovery.ts';

const test = agentTest({ OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8' });

const NOTE = 'Fine, but mention the 10% discount';

/** The fake model's reply to each rendered prompt. */
function replyTo(prompt: string | undefined): string {
  if (prompt?.startsWith('Draft a reply to: '))
    return `Dear customer, regarding "${prompt.slice('Draft a reply to: '.length)}": we are on it.`;
  if (prompt?.startsWith('Send it.')) return 'Sent to the customer.';
  if (prompt === 'Nobody answered in time.') return 'I will follow up tomorrow.';
  return 'ok';
}

test.beforeEach(({ env }) => {
  env.fake.reset();
  env.fake.setHandler((request) => ({ text: replyTo(lastUserText(request)) }));
});

interface RunBody {
  id: string;
  status: string;
  sessionId: string;
  agentId: string;
  workflow: string;
  revision: number;
  currentNode: string | null;
  input: string | null;
  outputs: Record<string, unknown>;
  error: string | null;
  createdAt: string;
  endedAt: string | null;
}

type Requested = Extract<SessionEvent, { type: 'approval.requested' }>;

async function startRun(env: AgentEnv, name: string, input: unknown, workflow = 'review') {
  return call<{ sessionId: string; runId: string }>(`${env.api.url}/agent/${name}/workflow/${workflow}`, {
    headers: env.user.auth,
    json: input === undefined ? {} : { input },
  });
}

const getRun = (env: AgentEnv, id: string, auth = env.user.auth) => call<RunBody>(`${env.api.url}/run/${id}`, { headers: auth });

async function waitForApproval(env: AgentEnv, sessionId: string): Promise<Requested> {
  const events = await env.waitForEvents(sessionId, (all) => all.some((event) => event.type === 'approval.requested'));
  return events.find((event) => event.type === 'approval.requested') as Requested;
}

const waitForRunEnd = (env: AgentEnv, sessionId: string) =>
  env.waitForEvents(sessionId, (all) => all.some((event) => event.type === 'workflow.completed' || event.type === 'workflow.failed'));

const answer = (env: AgentEnv, approvalId: string, body: unknown) =>
  call<{ status: string; choice: string }>(`${env.api.url}/approval/${approvalId}/answer`, { headers: env.user.auth, json: body });

/** The event types, deltas left out, with the node of each workflow.node. */
function story(events: SessionEvent[]): string[] {
  return events
    .filter((event) => event.type !== 'message.part.delta')
    .map((event) => (event.type === 'workflow.node' ? `workflow.node ${event.nodeId} (${event.nodeType})` : event.type));
}

/** One agent node's turn: its user message (the rendered prompt), the turn, the reply. */
const TURN = ['message.created', 'turn.started', 'message.created', 'message.completed', 'turn.completed'];

const prompts = (requests: readonly FakeRequest[]) => requests.map((request) => lastUserText(request));

describe('workflow graph runs', () => {
  test('waits on its approval across a worker restart; "yes" follows to the send node with the note', async ({ env }) => {
    const { name, agentId } = await env.deploy(reviewBundle());
    const input = 'My order 1042 arrived broken';
    const started = await startRun(env, name, input);
    expect(started.status).toBe(202);
    expect(started.body).toEqual({
      sessionId: expect.stringMatching(/^ses_[0-9a-z]{26}$/),
      runId: expect.stringMatching(/^run_[0-9a-z]{26}$/),
    });
    const { sessionId, runId } = started.body;
    const draft = replyTo(`Draft a reply to: ${input}`);

    const requested = await waitForApproval(env, sessionId);
    expect(requested).toMatchObject({ question: `Send this draft? ${draft}`, options: ['yes', 'no'], source: 'workflow' });
    expect(requested).not.toHaveProperty('links');

    // The run waits: its session is waiting and takes no sends.
    const waitingRun = await getRun(env, runId);
    expect(waitingRun.body).toMatchObject({
      status: 'running',
      currentNode: 'check',
      outputs: { draft: { output: draft } },
      endedAt: null,
    });
    const session = await call<{ status: string }>(`${env.api.url}/session/${sessionId}`, { headers: env.user.auth });
    expect(session.body.status).toBe('waiting');
    const send = await call(`${env.api.url}/session/${sessionId}?async=1`, {
      headers: env.user.auth,
      json: { parts: [{ type: 'text', text: 'Are you there?' }] },
    });
    expect(send.status).toBe(409);
    // Its session is not busy in PostgreSQL's sense, so a worker that finds another dead asks Temporal for
    // the running graph (and eval) workflows instead (workers/dead-worker-recovery.ts): the run is among them.
    await vi.waitFor(
      async () => expect(await runningListedWorkflowIds(env.worker.client, env.worker.taskQueue, 50)).toContain(graphRunWorkflowId(runId)),
      { timeout: 10_000, interval: 200 },
    );

    await env.restartWorker();
    expect((await getRun(env, runId)).body).toMatchObject({ status: 'running', currentNode: 'check' });

    const answered = await answer(env, requested.approvalId, { choice: 'yes', note: NOTE });
    expect(answered.status).toBe(200);
    const events = await waitForRunEnd(env, sessionId);

    expect(prompts(env.fake.requests)).toEqual([`Draft a reply to: ${input}`, `Send it. The reviewer said: ${NOTE}`]);
    // The send node's turn sees the conversation so far: the draft prompt and the draft.
    const sendMessages = env.fake.requests[1]!.body.messages.filter((message) => message.role !== 'system');
    expect(sendMessages.map((message) => [message.role, message.content])).toEqual([
      ['user', `Draft a reply to: ${input}`],
      ['assistant', draft],
      ['user', `Send it. The reviewer said: ${NOTE}`],
    ]);

    expect(story(events)).toEqual([
      'session.created',
      'trigger.fired',
      'workflow.started',
      'workflow.node draft (agent)',
      ...TURN,
      'workflow.node check (approval)',
      'approval.requested',
      'approval.answered',
      'workflow.node send (agent)',
      ...TURN,
      'workflow.completed',
    ]);
    expect(events.find((event) => event.type === 'trigger.fired')).toMatchObject({ trigger: { kind: 'api' }, workflow: 'review', runId });
    expect(events.find((event) => event.type === 'workflow.started')).toMatchObject({ runId, workflow: 'review', input });
    expect(events.find((event) => event.type === 'approval.answered')).toMatchObject({
      approvalId: requested.approvalId,
      choice: 'yes',
      note: NOTE,
      via: 'api',
    });
    const outputs = { draft: { output: draft }, check: { choice: 'yes', note: NOTE }, send: { output: 'Sent to the customer.' } };
    expect(events.at(-1)).toMatchObject({ type: 'workflow.completed', runId, outputs });

    const run = await getRun(env, runId);
    expect(run.status).toBe(200);
    expect(run.body).toEqual({
      id: runId,
      status: 'completed',
      sessionId,
      agentId,
      workflow: 'review',
      revision: 1,
      currentNode: 'send',
      input,
      outputs,
      error: null,
      createdAt: expect.any(String),
      endedAt: expect.any(String),
    });
    expect(Date.parse(run.body.endedAt!)).toBeGreaterThanOrEqual(Date.parse(run.body.createdAt));
    const after = await call<{ status: string }>(`${env.api.url}/session/${sessionId}`, { headers: env.user.auth });
    expect(after.body.status).toBe('idle');
  });

  test('"no" follows to the end node: no further model request; the session takes sends again', async ({ env }) => {
    const { name } = await env.deploy(reviewBundle());
    const started = await startRun(env, name, { order: 7, issue: 'late' });
    expect(started.status).toBe(202);
    const { sessionId, runId } = started.body;
    const input = '{"order":7,"issue":"late"}';
    // The ids answered are readable at once, and the run holds its session from the start.
    expect((await getRun(env, runId)).body).toMatchObject({ id: runId, status: 'running', sessionId, input });
    const early = await call(`${env.api.url}/session/${sessionId}?async=1`, {
      headers: env.user.auth,
      json: { parts: [{ type: 'text', text: 'Sneaking in' }] },
    });
    expect(early.status).toBe(409);
    const requested = await waitForApproval(env, sessionId);
    expect((await answer(env, requested.approvalId, { choice: 'No' })).status).toBe(200);
    const events = await waitForRunEnd(env, sessionId);

    expect(prompts(env.fake.requests)).toEqual([`Draft a reply to: ${input}`]);
    expect(story(events).slice(-4)).toEqual(['approval.requested', 'approval.answered', 'workflow.node stop (end)', 'workflow.completed']);
    const outputs = { draft: { output: replyTo(`Draft a reply to: ${input}`) }, check: { choice: 'no', note: null } };
    expect(events.at(-1)).toMatchObject({ type: 'workflow.completed', runId, outputs });
    expect((await getRun(env, runId)).body).toMatchObject({ status: 'completed', currentNode: 'stop', input, outputs, error: null });

    // The run is over: the session is an ordinary one again.
    const send = await call<{ status: string; reply: string }>(`${env.api.url}/session/${sessionId}`, {
      headers: env.user.auth,
      json: { parts: [{ type: 'text', text: 'Thanks' }] },
    });
    expect(send.status).toBe(200);
    expect(send.body).toMatchObject({ status: 'completed', reply: 'ok' });
    expect(prompts(env.fake.requests)).toEqual([`Draft a reply to: ${input}`, 'Thanks']);
  });

  test('an approval nobody answers expires and the run follows onExpired', async ({ env }) => {
    const { name } = await env.deploy(reviewBundle(1500));
    const started = await startRun(env, name, 'Where is my parcel?');
    expect(started.status).toBe(202);
    const { sessionId, runId } = started.body;
    const requested = await waitForApproval(env, sessionId);
    const events = await waitForRunEnd(env, sessionId);

    expect(prompts(env.fake.requests)).toEqual(['Draft a reply to: Where is my parcel?', 'Nobody answered in time.']);
    expect(story(events).slice(-10)).toEqual([
      'workflow.node check (approval)',
      'approval.requested',
      'approval.expired',
      'workflow.node late (agent)',
      ...TURN,
      'workflow.completed',
    ]);
    expect(events.find((event) => event.type === 'approval.expired')).toMatchObject({ approvalId: requested.approvalId });
    const outputs = {
      draft: { output: replyTo('Draft a reply to: Where is my parcel?') },
      check: { expired: true },
      late: { output: 'I will follow up tomorrow.' },
    };
    expect(events.at(-1)).toMatchObject({ type: 'workflow.completed', runId, outputs });
    const run = await getRun(env, runId);
    expect(run.body).toMatchObject({ status: 'completed', currentNode: 'late', error: null });
    expect(run.body.outputs).toEqual(outputs);
    expect((await answer(env, requested.approvalId, { choice: 'yes' })).status).toBe(410);
  });

  test('a webhook trigger naming the workflow starts a run whose input is the body', async ({ env }) => {
    const { name, agentId } = await env.deploy(reviewBundle(600_000, [{ kind: 'webhook', workflow: 'review' }]));
    const agent = await call<{ triggers: Array<{ url: string }> }>(`${env.api.url}/agent/${name}`, { headers: env.user.auth });
    const body = 'Ticket 88: the invoice shows the wrong address';
    const fired = await call<{ sessionId: string; runId: string }>(agent.body.triggers[0]!.url, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body,
    });
    expect(fired.status).toBe(202);
    expect(fired.body).toEqual({ sessionId: expect.stringMatching(/^ses_/), runId: expect.stringMatching(/^run_/) });
    const { sessionId, runId } = fired.body;
    const requested = await waitForApproval(env, sessionId);
    expect(requested.question).toBe(`Send this draft? ${replyTo(`Draft a reply to: ${body}`)}`);
    expect(prompts(env.fake.requests)).toEqual([`Draft a reply to: ${body}`]);
    const events = await env.events(sessionId);
    expect(events.find((event) => event.type === 'trigger.fired')).toMatchObject({
      trigger: { kind: 'webhook', index: 0 },
      workflow: 'review',
      runId,
    });
    expect(events.find((event) => event.type === 'workflow.started')).toMatchObject({ runId, workflow: 'review', input: body });
    expect((await getRun(env, runId)).body).toMatchObject({ status: 'running', agentId, sessionId, input: body, currentNode: 'check' });

    await answer(env, requested.approvalId, { choice: 'no' });
    const ended = await waitForRunEnd(env, sessionId);
    expect(ended.at(-1)).toMatchObject({ type: 'workflow.completed', runId });
  });

  test('a failed turn fails the run with its error', async ({ env }) => {
    const { name } = await env.deploy(reviewBundle());
    env.fake.enqueue({ status: 401, errorBody: { error: { message: 'Incorrect API key provided', type: 'invalid_request_error' } } });
    const started = await startRun(env, name, 'anything');
    expect(started.status).toBe(202);
    const { sessionId, runId } = started.body;
    const events = await waitForRunEnd(env, sessionId);

    expect(env.fake.requests).toHaveLength(1);
    expect(story(events).slice(2)).toEqual([
      'workflow.started',
      'workflow.node draft (agent)',
      'message.created',
      'turn.started',
      'message.created',
      'message.completed',
      'turn.failed',
      'workflow.failed',
    ]);
    expect(events.findLast((event) => event.type === 'message.completed')).toMatchObject({
      message: { role: 'assistant', status: 'failed' },
    });
    const turnFailed = events.find((event) => event.type === 'turn.failed') as Extract<SessionEvent, { type: 'turn.failed' }>;
    expect(turnFailed.error).toMatch(/API key/i);
    expect(events.at(-1)).toEqual(expect.objectContaining({ type: 'workflow.failed', runId, error: turnFailed.error }));
    const run = await getRun(env, runId);
    expect(run.body).toMatchObject({ status: 'failed', currentNode: 'draft', outputs: {}, error: turnFailed.error });
    expect(run.body.endedAt).not.toBeNull();
    const session = await call<{ status: string }>(`${env.api.url}/session/${sessionId}`, { headers: env.user.auth });
    expect(session.body.status).toBe('idle');
  });

  test('a run cancelled or terminated by an operator ends failed and frees its session', async ({ env }) => {
    const { name } = await env.deploy(reviewBundle());
    const cancelled = await startRun(env, name, 'cancel me');
    await waitForApproval(env, cancelled.body.sessionId);
    await env.worker.client.workflow.getHandle(`run:${cancelled.body.runId}`).cancel();
    const events = await waitForRunEnd(env, cancelled.body.sessionId);
    expect(events.at(-1)).toMatchObject({ type: 'workflow.failed', runId: cancelled.body.runId, error: 'The run was cancelled' });
    expect((await getRun(env, cancelled.body.runId)).body).toMatchObject({ status: 'failed', error: 'The run was cancelled' });
    const afterCancel = await call(`${env.api.url}/session/${cancelled.body.sessionId}?async=1`, {
      headers: env.user.auth,
      json: { parts: [{ type: 'text', text: 'Still there?' }] },
    });
    expect(afterCancel.status).toBe(202);

    // Terminated: the run cannot write its own end; the next send finds it gone and closes it.
    const terminated = await startRun(env, name, 'terminate me');
    await waitForApproval(env, terminated.body.sessionId);
    await env.worker.client.workflow.getHandle(`run:${terminated.body.runId}`).terminate('operator');
    const afterTerminate = await call(`${env.api.url}/session/${terminated.body.sessionId}?async=1`, {
      headers: env.user.auth,
      json: { parts: [{ type: 'text', text: 'Anyone?' }] },
    });
    expect(afterTerminate.status).toBe(202);
    expect((await getRun(env, terminated.body.runId)).body).toMatchObject({ status: 'failed', error: 'The run stopped (TERMINATED)' });
    await env.waitForEvents(terminated.body.sessionId, (all) => all.some((event) => event.type === 'turn.completed'));
    await env.waitForEvents(cancelled.body.sessionId, (all) => all.some((event) => event.type === 'turn.completed'));
  });

  test('404 for an unknown workflow or agent; GET /run is 403 for another user and 404 for an unknown id', async ({ env }) => {
    const { name } = await env.deploy(reviewBundle());
    const unknownWorkflow = await startRun(env, name, 'x', 'nope');
    expect(unknownWorkflow.status).toBe(404);
    expect(unknownWorkflow.body).toMatchObject({ detail: `Agent "${name}" has no workflow "nope"` });
    const unknownAgent = await startRun(env, 'no-such-agent', 'x');
    expect(unknownAgent.status).toBe(404);
    expect(unknownAgent.body).toMatchObject({ detail: 'You have no agent named "no-such-agent"' });

    const started = await startRun(env, name, 'Who may see this run?');
    expect(started.status).toBe(202);
    const { runId, sessionId } = started.body;
    const requested = await waitForApproval(env, sessionId);
    const other = await createTestUser(env.api.db);
    expect((await getRun(env, runId, other.auth)).status).toBe(403);
    // Agent names are private per user: another user's run request names no agent of theirs.
    expect((await call(`${env.api.url}/agent/${name}/workflow/review`, { headers: other.auth, json: {} })).status).toBe(404);
    expect((await getRun(env, `run_${'0'.repeat(26)}`)).status).toBe(404);
    expect((await getRun(env, 'not-a-run')).status).toBe(404);
    expect((await getRun(env, runId)).status).toBe(200);

    await answer(env, requested.approvalId, { choice: 'no' });
    await waitForRunEnd(env, sessionId);
  });
});
