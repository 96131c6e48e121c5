// A child session of an agent call whose workflow an operator terminates mid-turn: nothing is left to
// end its turn, so a housekeeping pass finds the call (its send taken, its turn not ended, its workflow
// not running) and wakes the child's session; its fresh run ends the stranded turn as failed, and the
// caller's model reads that as the call's error result and goes on (a graph's agent node fails its run).
import { expect } from 'vitest';
import { agentTest } from '../helpers/harness/fixtures.ts';
import { call } from '../helpers/client/request.ts';
import { HELPER_INSTRUCTIONS, LEAD_INSTRUCTIONS, leadAndHelper } from '../helpers/fakes/lead-and-helper.ts';
import { sessionWorkflowId } from '../../lib/workflow-safe/workflow-ids.ts';
import type { SessionEvent } from '../../contract/events.ts';

// A pass every second, taking calls older than a second.
const test = agentTest({ HOUSEKEEPING_INTERVAL_MS: '1000' });

test('a child whose workflow was terminated mid-turn fails its call: the caller reads the error and goes on', async ({ env }) => {
  const helper = await env.deploy({ instructions: HELPER_INSTRUCTIONS });
  const lead = await env.deploy({ instructions: LEAD_INSTRUCTIONS, agents: [{ name: helper.name }] });
  let release!: () => void;
  const never = new Promise<void>((resolve) => (release = resolve));
  env.fake.setHandler(
    leadAndHelper({ helperName: helper.name, helper: { text: 'Too late.', holdUntil: never }, leadText: 'Lead went on.' }),
  );
  try {
    const sessionId = (await call<{ id: string }>(`${env.api.url}/agent/${lead.name}/session`, { headers: env.user.auth, json: {} })).body
      .id;
    const sent = await call(`${env.api.url}/session/${sessionId}?async=1`, {
      headers: env.user.auth,
      json: { parts: [{ type: 'text', text: 'Go' }] },
    });
    expect(sent.status).toBe(202);
    const started = (await env.waitForEvents(sessionId, (all) => all.some((event) => event.type === 'subagent.started'))).find(
      (event): event is Extract<SessionEvent, { type: 'subagent.started' }> => event.type === 'subagent.started',
    )!;
    // The child's step is calling its (held) model when an operator terminates its session's workflow.
    await env.waitForEvents(started.childSessionId, (all) => all.some((event) => event.type === 'turn.started'));
    await env.worker.client.workflow.getHandle(sessionWorkflowId(started.childSessionId)).terminate('an operator');

    const events = await env.waitForEvents(sessionId, (all) => all.some((event) => event.type === 'turn.completed'), 30_000);
    const failed = events.find((event) => event.type === 'subagent.failed');
    expect(failed).toMatchObject({ toolCallId: 'call_help', childSessionId: started.childSessionId, status: 'failed' });
    const result = events.find((event) => event.type === 'tool.result' && event.toolCallId === 'call_help');
    expect(result).toMatchObject({ isError: true, output: expect.stringContaining('terminated') });
    const reply = await call<{ messages: { role: string; parts: { type: string; text?: string }[] }[] }>(
      `${env.api.url}/session/${sessionId}`,
      {
        headers: env.user.auth,
      },
    );
    expect(reply.body.messages.at(-1)!.parts).toEqual([expect.objectContaining({ type: 'text', text: 'Lead went on.' })]);
    // The child's stranded turn was ended once, as failed, and its session is idle again.
    const child = await env.waitForEvents(started.childSessionId, (all) => all.some((event) => event.type === 'turn.failed'));
    expect(child.filter((event) => event.type === 'turn.failed')).toHaveLength(1);
    const childView = await call<{ status: string }>(`${env.api.url}/session/${started.childSessionId}`, { headers: env.user.auth });
    expect(childView.body.status).toBe('idle');
  } finally {
    release();
  }
});

test("a graph's agent node whose child workflow was terminated mid-turn fails the run, with why", async ({ env }) => {
  const helper = await env.deploy({ instructions: HELPER_INSTRUCTIONS });
  const owner = await env.deploy({
    instructions: 'ROLE owner',
    agents: [{ name: helper.name }],
    workflows: { digest: { start: 'summary', nodes: { summary: { type: 'agent', agent: helper.name, prompt: 'Summarise {{input}}' } } } },
  });
  let release!: () => void;
  const never = new Promise<void>((resolve) => (release = resolve));
  env.fake.setHandler(() => ({ text: 'Too late.', holdUntil: never }));
  try {
    const started = await call<{ sessionId: string; runId: string }>(`${env.api.url}/agent/${owner.name}/workflow/digest`, {
      headers: env.user.auth,
      json: { input: 'tides' },
    });
    expect(started.status).toBe(202);
    const child = (await env.waitForEvents(started.body.sessionId, (all) => all.some((event) => event.type === 'subagent.started'))).find(
      (event): event is Extract<SessionEvent, { type: 'subagent.started' }> => event.type === 'subagent.started',
    )!;
    await env.waitForEvents(child.childSessionId, (all) => all.some((event) => event.type === 'turn.started'));
    await env.worker.client.workflow.getHandle(sessionWorkflowId(child.childSessionId)).terminate('an operator');

    const events = await env.waitForEvents(started.body.sessionId, (all) => all.some((event) => event.type === 'workflow.failed'), 30_000);
    expect(events.find((event) => event.type === 'workflow.failed')).toMatchObject({ error: expect.stringContaining('terminated') });
  } finally {
    release();
  }
});
