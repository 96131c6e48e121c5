// Records both sides of one agent calling another (docs/tools.md, "Calling other agents"): the caller's
// session, whose turn starts the child (startAgentCall) and waits for its reply through the inbox, and
// the child's session, whose last step hands that reply back itself (StepResult.answerHandedBack), so its
// workflow stores nothing more (`agent-call-replied-idle-ended`, recorded before, has its workflow store
// it with endAgentCall, as it still does when the step's hand-back fails); and
// both sides of a workflow graph's agent node run by another agent (the run waits for the child's
// signal). Each history closes when its idle session (or its run) ends.
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startAgentEnv, type AgentEnv } from '../../helpers/harness/agent-env.ts';
import { call } from '../../helpers/client/request.ts';
import { messageText } from '../../helpers/fakes/fake-model.ts';
import { graphRunWorkflowId, sessionWorkflowId } from '../../../lib/workflow-safe/workflow-ids.ts';
import type { SessionEvent } from '../../../contract/events.ts';
import { recorder, type Recorder } from './recorder.ts';
import { RECORDING_ENV } from './recording-env.ts';

let env: AgentEnv;
let record: Recorder;
beforeAll(async () => {
  // An idle session ends after a second, so its history closes.
  env = await startAgentEnv({ ...RECORDING_ENV, SESSION_IDLE_MS: '1000' });
  record = recorder(env.worker.client, [env.user.apiKey]);
});
afterAll(async () => env?.close());

test("sessionWorkflow: a turn that calls another agent, and the child's session returning its reply", async () => {
  const caller = record.wanted('sessionWorkflow', 'agent-called-idle-ended');
  const callee = record.wanted('sessionWorkflow', 'agent-call-handed-back-idle-ended');
  if (!caller && !callee) return;
  const helper = await env.deploy({ instructions: 'ROLE helper' });
  const lead = await env.deploy({ instructions: 'ROLE lead', agents: [{ name: helper.name }] });
  env.fake.setHandler((request) => {
    if (messageText(request.body.messages.find((message) => message.role === 'system'))?.includes('ROLE helper'))
      return { text: 'Helped.' };
    return request.body.messages.at(-1)?.role === 'tool'
      ? { text: 'All done.' }
      : { toolCalls: [{ id: 'call_help', name: `agent_${helper.name}`, arguments: { message: 'Help me' } }] };
  });
  const sessionId = (await call<{ id: string }>(`${env.api.url}/agent/${lead.name}/session`, { headers: env.user.auth, json: {} })).body.id;
  const sent = await call<{ status: string; reply: string }>(`${env.api.url}/session/${sessionId}`, {
    headers: env.user.auth,
    json: { parts: [{ type: 'text', text: 'Go' }] },
  });
  expect(sent.body).toMatchObject({ status: 'completed', reply: 'All done.' });
  const started = (await env.events(sessionId)).find(
    (event): event is Extract<SessionEvent, { type: 'subagent.started' }> => event.type === 'subagent.started',
  )!;
  env.fake.setHandler(undefined);
  if (caller) await record.closed(sessionWorkflowId(sessionId), 'sessionWorkflow', 'agent-called-idle-ended');
  if (callee) await record.closed(sessionWorkflowId(started.childSessionId), 'sessionWorkflow', 'agent-call-handed-back-idle-ended');
});

test("graphRunWorkflow: an agent node run by another agent, and the child's session signalling the run", async () => {
  const run = record.wanted('graphRunWorkflow', 'agent-node-called-completed');
  const callee = record.wanted('sessionWorkflow', 'agent-node-replied-idle-ended');
  if (!run && !callee) return;
  const helper = await env.deploy({ instructions: 'ROLE helper' });
  const owner = await env.deploy({
    instructions: 'ROLE owner',
    agents: [{ name: helper.name }],
    workflows: { digest: { start: 'summary', nodes: { summary: { type: 'agent', agent: helper.name, prompt: 'Summarise {{input}}' } } } },
  });
  env.fake.setHandler(() => ({ text: 'Summarised.' }));
  const started = await call<{ sessionId: string; runId: string }>(`${env.api.url}/agent/${owner.name}/workflow/digest`, {
    headers: env.user.auth,
    json: { input: 'tides' },
  });
  expect(started.status).toBe(202);
  const events = await env.waitForEvents(started.body.sessionId, (all) => all.some((event) => event.type === 'workflow.completed'));
  const child = events.find((event): event is Extract<SessionEvent, { type: 'subagent.started' }> => event.type === 'subagent.started')!;
  env.fake.setHandler(undefined);
  if (run) await record.closed(graphRunWorkflowId(started.body.runId), 'graphRunWorkflow', 'agent-node-called-completed');
  if (callee) await record.closed(sessionWorkflowId(child.childSessionId), 'sessionWorkflow', 'agent-node-replied-idle-ended');
});
