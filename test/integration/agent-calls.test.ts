// Agents that call agents, with the fake model: each call a child session of the callee whose reply is
// the call's result; several at once; a JSON reply; a conversation continued across turns; a child
// failing or refused past the depth limit, read by the caller's model as a tool error; an abort that
// reaches the children; and the bundles deploy refuses.
import { describe, expect } from 'vitest';
import { agentTest } from '../helpers/harness/fixtures.ts';
import { call } from '../helpers/client/request.ts';
import { messageText, type FakeRequest, type FakeScript } from '../helpers/fakes/fake-model.ts';
import { createTestUser } from '../helpers/harness/users.ts';
import type { SessionEvent } from '../../contract/events.ts';

const test = agentTest({ AGENT_CALL_DEPTH_LIMIT: '1' });

/** The system prompt of a request: which agent the fake is answering. */
const systemOf = (request: FakeRequest) => messageText(request.body.messages.find((message) => message.role === 'system')) ?? '';
/** Whether the request follows tool results (the caller's step after its calls). */
const afterTools = (request: FakeRequest) => request.body.messages.at(-1)?.role === 'tool';
/** The tool results the request carries, by tool call id. */
function toolResults(request: FakeRequest): Record<string, unknown> {
  return Object.fromEntries(
    request.body.messages.filter((message) => message.role === 'tool').map((message) => [message.tool_call_id, messageText(message)]),
  );
}

type Handler = (request: FakeRequest) => FakeScript | undefined;

/** Answers each request by the first of `handlers` that knows it. */
function answerBy(...handlers: Handler[]) {
  return (request: FakeRequest): FakeScript => {
    for (const handler of handlers) {
      const script = handler(request);
      if (script) return script;
    }
    throw new Error(`no script for a request to "${systemOf(request).slice(0, 60)}"`);
  };
}

/** Calls `read` until `done` says its answer is the one awaited (10 s at most). */
async function until<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const ofType = <T extends SessionEvent['type']>(events: SessionEvent[], type: T) =>
  events.filter((event): event is Extract<SessionEvent, { type: T }> => event.type === type);

describe('agents calling agents', () => {
  test('two children in one step both run, and both replies come back as the results of their calls', async ({ env }) => {
    const researcher = await env.deploy({ instructions: 'ROLE researcher: you look things up.' });
    const reviewer = await env.deploy({
      instructions: 'ROLE reviewer',
      jsonReply: { schema: { type: 'object', required: ['ok'], properties: { ok: { type: 'boolean' } } } },
    });
    const writer = await env.deploy({
      instructions: 'ROLE writer',
      agents: [{ name: researcher.name }, { name: reviewer.name, description: 'Reviews a draft.' }],
    });
    env.fake.setHandler(
      answerBy(
        (request) => (systemOf(request).includes('ROLE researcher') ? { text: 'Tides follow the moon.' } : undefined),
        (request) => (systemOf(request).includes('ROLE reviewer') ? { text: '{"ok": true}' } : undefined),
        (request) =>
          systemOf(request).includes('ROLE writer') && !afterTools(request)
            ? {
                toolCalls: [
                  { id: 'call_r', name: `agent_${researcher.name}`, arguments: { message: 'Why do tides happen?' } },
                  { id: 'call_v', name: `agent_${reviewer.name}`, arguments: { message: 'Review: tides.' } },
                ],
              }
            : undefined,
        (request) => (systemOf(request).includes('ROLE writer') ? { text: 'Done: both answered.' } : undefined),
      ),
    );
    const sessionId = (await call<{ id: string }>(`${env.api.url}/agent/${writer.name}/session`, { headers: env.user.auth, json: {} })).body
      .id;
    const reply = await call<{ reply: string; status: string }>(`${env.api.url}/session/${sessionId}`, {
      headers: env.user.auth,
      json: { parts: [{ type: 'text', text: 'Write about tides.' }] },
    });
    expect(reply.body).toMatchObject({ status: 'completed', reply: 'Done: both answered.' });

    // The writer's model was offered one tool per agent, described from the bundle or the callee's instructions.
    const first = env.fake.requests.find((request) => systemOf(request).includes('ROLE writer'))!;
    const offered = Object.fromEntries((first.body.tools ?? []).map((tool) => [tool.function.name, tool.function.description]));
    expect(offered[`agent_${reviewer.name}`]).toBe('Reviews a draft.');
    expect(offered[`agent_${researcher.name}`]).toContain('ROLE researcher: you look things up.');

    // Its second step read both results: the child's session and its reply (the JSON reply for the reviewer).
    const second = env.fake.requests.findLast((request) => systemOf(request).includes('ROLE writer'))!;
    const results = toolResults(second);
    const research = JSON.parse(results.call_r as string) as { sessionId: string; reply: unknown };
    const review = JSON.parse(results.call_v as string) as { sessionId: string; reply: unknown };
    expect(research.reply).toBe('Tides follow the moon.');
    expect(review.reply).toEqual({ ok: true });

    // Each child is a session of its callee, linked to the call that opened it, with its own events.
    for (const [child, agent, toolCallId] of [
      [research.sessionId, researcher, 'call_r'],
      [review.sessionId, reviewer, 'call_v'],
    ] as const) {
      const view = await call<{ agentId: string; parentSessionId: string; parentToolCallId: string; callDepth: number }>(
        `${env.api.url}/session/${child}`,
        { headers: env.user.auth },
      );
      expect(view.body).toMatchObject({ agentId: agent.agentId, parentSessionId: sessionId, parentToolCallId: toolCallId, callDepth: 1 });
    }
    const events = await env.events(sessionId);
    expect(
      ofType(events, 'subagent.started')
        .map((event) => event.childSessionId)
        .sort(),
    ).toEqual([research.sessionId, review.sessionId].sort());
    expect(
      ofType(events, 'subagent.completed')
        .map((event) => event.toolCallId)
        .sort(),
    ).toEqual(['call_r', 'call_v']);
    // Each call's result was announced once, before the writer's turn ended.
    const results_ = ofType(events, 'tool.result');
    expect(results_.map((event) => event.toolCallId).sort()).toEqual(['call_r', 'call_v']);
    expect(results_.every((event) => !event.isError)).toBe(true);

    // The writer's turn counts what its children's turns spent with its own steps.
    const own = ofType(events, 'message.completed').reduce((sum, event) => sum + (event.message.usage?.inputTokens ?? 0), 0);
    let children = 0;
    for (const child of [research.sessionId, review.sessionId])
      children += ofType(await env.events(child), 'turn.completed').reduce((sum, event) => sum + event.usage.inputTokens, 0);
    expect(children).toBeGreaterThan(0);
    expect(ofType(events, 'turn.completed')[0]!.usage.inputTokens).toBe(own + children);
  });

  test('a sessionId from an earlier result continues that conversation in a later turn', async ({ env }) => {
    const helper = await env.deploy({ instructions: 'ROLE counter' });
    const boss = await env.deploy({ instructions: 'ROLE boss', agents: [{ name: helper.name }] });
    let childSession = '';
    env.fake.setHandler(
      answerBy(
        (request) =>
          systemOf(request).includes('ROLE counter')
            ? { text: `I have seen ${request.body.messages.filter((message) => message.role === 'user').length} messages.` }
            : undefined,
        (request) => {
          if (!systemOf(request).includes('ROLE boss')) return undefined;
          if (afterTools(request)) {
            const last = Object.values(toolResults(request)).at(-1) as string;
            if (!last.startsWith('{')) return { text: `refused: ${last}` };
            const result = JSON.parse(last) as { sessionId: string; reply: string };
            childSession = result.sessionId;
            return { text: result.reply };
          }
          return {
            toolCalls: [
              {
                id: `call_${request.index}`,
                name: `agent_${helper.name}`,
                arguments: { message: 'Count', ...(childSession ? { sessionId: childSession } : {}) },
              },
            ],
          };
        },
      ),
    );
    const sessionId = (await call<{ id: string }>(`${env.api.url}/agent/${boss.name}/session`, { headers: env.user.auth, json: {} })).body
      .id;
    const send = () =>
      call<{ reply: string }>(`${env.api.url}/session/${sessionId}`, {
        headers: env.user.auth,
        json: { parts: [{ type: 'text', text: 'Go' }] },
      });
    expect((await send()).body.reply).toBe('I have seen 1 messages.');
    const firstChild = childSession;
    expect((await send()).body.reply).toBe('I have seen 2 messages.');
    expect(childSession).toBe(firstChild);

    // A sessionId that is not a conversation of this session with that agent is refused, and the model reads why.
    const other = (await call<{ id: string }>(`${env.api.url}/agent/${helper.name}/session`, { headers: env.user.auth, json: {} })).body.id;
    childSession = other;
    const refused = await send();
    expect(refused.body.reply).toContain(`refused: There is no conversation "${other}"`);
    const events = await env.events(sessionId);
    expect(ofType(events, 'tool.result').at(-1)).toMatchObject({ isError: true });
  });

  test('a child that fails is a tool error the caller reads and goes on from; past the depth limit a call is refused', async ({ env }) => {
    const broken = await env.deploy({ instructions: 'ROLE broken' });
    const leaf = await env.deploy({ instructions: 'ROLE leaf' });
    const middle = await env.deploy({ instructions: 'ROLE middle', agents: [{ name: leaf.name }] });
    const top = await env.deploy({ instructions: 'ROLE top', agents: [{ name: broken.name }, { name: middle.name }] });
    env.fake.setHandler(
      answerBy(
        (request) =>
          systemOf(request).includes('ROLE broken') ? { status: 400, errorBody: { error: { message: 'bad request' } } } : undefined,
        (request) => (systemOf(request).includes('ROLE leaf') ? { text: 'leaf reply' } : undefined),
        (request) => {
          const system = systemOf(request);
          const role = system.includes('ROLE middle') ? 'middle' : system.includes('ROLE top') ? 'top' : undefined;
          if (!role) return undefined;
          if (afterTools(request)) return { text: `${role} read: ${JSON.stringify(toolResults(request))}` };
          return role === 'middle'
            ? { toolCalls: [{ id: 'call_leaf', name: `agent_${leaf.name}`, arguments: { message: 'deeper' } }] }
            : {
                toolCalls: [
                  { id: 'call_broken', name: `agent_${broken.name}`, arguments: { message: 'fail please' } },
                  { id: 'call_middle', name: `agent_${middle.name}`, arguments: { message: 'go deeper' } },
                ],
              };
        },
      ),
    );
    const sessionId = (await call<{ id: string }>(`${env.api.url}/agent/${top.name}/session`, { headers: env.user.auth, json: {} })).body
      .id;
    const reply = await call<{ reply: string; status: string }>(`${env.api.url}/session/${sessionId}`, {
      headers: env.user.auth,
      json: { parts: [{ type: 'text', text: 'Start' }] },
    });
    expect(reply.body.status).toBe('completed');
    // The broken child's failure came back as an error result, and the caller went on.
    expect(reply.body.reply).toContain(`The agent \\"${broken.name}\\" failed`);
    const events = await env.events(sessionId);
    expect(ofType(events, 'subagent.failed')).toEqual([expect.objectContaining({ toolCallId: 'call_broken', status: 'failed' })]);
    expect(ofType(events, 'subagent.completed')).toEqual([expect.objectContaining({ toolCallId: 'call_middle' })]);
    // The middle agent ran at depth 1, the limit: its own call (depth 2) was refused, and its model read why.
    expect(reply.body.reply).toContain('middle read:');
    expect(reply.body.reply).toContain('goes 1 deep at most (AGENT_CALL_DEPTH_LIMIT)');
    expect(env.fake.requests.some((request) => systemOf(request).includes('ROLE leaf'))).toBe(false);
  });

  test("aborting the caller aborts the child still running; a child's question is answered as any other and the caller goes on", async ({
    env,
  }) => {
    const slow = await env.deploy({ instructions: 'ROLE slow' });
    const asker = await env.deploy({ instructions: 'ROLE asker' });
    const lead = await env.deploy({ instructions: 'ROLE lead', agents: [{ name: slow.name }, { name: asker.name }] });
    let target = slow.name;
    env.fake.setHandler(
      answerBy(
        // Streams one chunk, then hangs until its model call is cut (the abort).
        (request) => (systemOf(request).includes('ROLE slow') ? { text: ['Thinking', ' forever'], stallAfterChunks: 1 } : undefined),
        (request) =>
          systemOf(request).includes('ROLE asker')
            ? afterTools(request)
              ? { text: `The user chose ${JSON.stringify(toolResults(request))}` }
              : { toolCalls: [{ id: 'call_ask', name: 'ask_my_user', arguments: { question: 'Red or blue?', options: ['red', 'blue'] } }] }
            : undefined,
        (request) =>
          systemOf(request).includes('ROLE lead')
            ? afterTools(request)
              ? { text: `lead read ${Object.values(toolResults(request)).at(-1) as string}` }
              : { toolCalls: [{ id: `call_${request.index}`, name: `agent_${target}`, arguments: { message: 'Work' } }] }
            : undefined,
      ),
    );
    const sessionId = (await call<{ id: string }>(`${env.api.url}/agent/${lead.name}/session`, { headers: env.user.auth, json: {} })).body
      .id;
    const sent = await call(`${env.api.url}/session/${sessionId}?async=1`, {
      headers: env.user.auth,
      json: { parts: [{ type: 'text', text: 'Go' }] },
    });
    expect(sent.status).toBe(202);
    const [started] = ofType(await env.waitForEvents(sessionId, (all) => ofType(all, 'subagent.started').length === 1), 'subagent.started');
    await env.waitForEvents(started!.childSessionId, (all) => ofType(all, 'message.part.delta').length > 0);
    const aborted = await call<{ aborted: boolean }>(`${env.api.url}/session/${sessionId}/abort`, { headers: env.user.auth, json: {} });
    expect(aborted.body.aborted).toBe(true);
    await env.waitForEvents(sessionId, (all) => ofType(all, 'turn.aborted').length === 1);
    // The child's turn ends aborted too (its model call cut), and nothing is left running.
    const child = await env.waitForEvents(started!.childSessionId, (all) => ofType(all, 'turn.aborted').length === 1);
    expect(ofType(child, 'turn.completed')).toEqual([]);
    const view = await call<{ status: string }>(`${env.api.url}/session/${started!.childSessionId}`, { headers: env.user.auth });
    expect(view.body.status).toBe('idle');

    // The next turn calls an agent that asks its user: the question is the child's, answered as any.
    target = asker.name;
    await call(`${env.api.url}/session/${sessionId}?async=1`, {
      headers: env.user.auth,
      json: { parts: [{ type: 'text', text: 'Again' }] },
    });
    const asking = ofType(
      await env.waitForEvents(sessionId, (all) => ofType(all, 'subagent.started').length === 2),
      'subagent.started',
    )[1]!;
    const [requested] = ofType(
      await env.waitForEvents(asking.childSessionId, (all) => ofType(all, 'approval.requested').length === 1),
      'approval.requested',
    );
    // The caller's session says which child holds its turn, and on what.
    const parentNow = await until(
      () =>
        call<{ status: string; waitingFor?: unknown; childSessions: unknown[] }>(`${env.api.url}/session/${sessionId}`, {
          headers: env.user.auth,
        }),
      (view) => view.body.waitingFor !== undefined,
    );
    expect(parentNow.body).toMatchObject({
      status: 'running',
      waitingFor: {
        kind: 'agents',
        sessions: [
          {
            sessionId: asking.childSessionId,
            agent: asker.name,
            toolCallId: asking.toolCallId,
            approvals: [{ approvalId: requested!.approvalId, question: 'Red or blue?', options: ['red', 'blue'] }],
            toolCalls: [],
          },
        ],
      },
    });
    expect(parentNow.body.childSessions).toEqual([
      expect.objectContaining({ id: started!.childSessionId, agent: slow.name, status: 'idle' }),
      expect.objectContaining({ id: asking.childSessionId, agent: asker.name, status: 'waiting', parentToolCallId: asking.toolCallId }),
    ]);
    const answered = await call(`${env.api.url}/approval/${requested!.approvalId}/answer`, {
      headers: env.user.auth,
      json: { choice: 'blue' },
    });
    expect(answered.status).toBe(200);
    const events = await env.waitForEvents(sessionId, (all) => ofType(all, 'turn.completed').length === 1);
    const lastResult = ofType(events, 'tool.result').at(-1)!;
    expect(lastResult.output).toMatchObject({ sessionId: asking.childSessionId, reply: expect.stringContaining('blue') });
  });

  test("a workflow graph's agent node run by another agent: its reply is the node's output, and a failing one fails the run", async ({
    env,
  }) => {
    const summariser = await env.deploy({ instructions: 'ROLE summariser' });
    const broken = await env.deploy({ instructions: 'ROLE broken' });
    const graph = (agent: string) => ({
      start: 'summary',
      nodes: {
        summary: { type: 'agent', agent, prompt: 'Summarise: {{input}}', next: 'tell' },
        tell: { type: 'agent', prompt: 'Tell the user: {{nodes.summary.output}}' },
      },
    });
    const owner = await env.deploy({
      instructions: 'ROLE owner',
      agents: [{ name: summariser.name }, { name: broken.name }],
      workflows: {
        digest: graph(summariser.name),
        failing: graph(broken.name),
        // A node's own turn (a turn workflow of its own) that calls another agent as a tool.
        delegating: { start: 'work', nodes: { work: { type: 'agent', prompt: 'Delegate: {{input}}' } } },
      },
    });
    env.fake.setHandler(
      answerBy(
        (request) =>
          systemOf(request).includes('ROLE summariser') ? { text: `short: ${messageText(request.body.messages.at(-1))}` } : undefined,
        (request) =>
          systemOf(request).includes('ROLE broken') ? { status: 400, errorBody: { error: { message: 'bad request' } } } : undefined,
        (request) => {
          if (!systemOf(request).includes('ROLE owner')) return undefined;
          const last = messageText(request.body.messages.at(-1)) ?? '';
          if (afterTools(request)) return { text: `delegated: ${last}` };
          if (last.startsWith('Delegate:'))
            return { toolCalls: [{ id: 'call_node', name: `agent_${summariser.name}`, arguments: { message: 'Summarise: waves' } }] };
          return { text: `told: ${last}` };
        },
      ),
    );
    const run = async (workflow: string) => {
      const started = await call<{ sessionId: string; runId: string }>(`${env.api.url}/agent/${owner.name}/workflow/${workflow}`, {
        headers: env.user.auth,
        json: { input: 'tides' },
      });
      expect(started.status).toBe(202);
      await env.waitForEvents(started.body.sessionId, (all) =>
        all.some((event) => event.type === 'workflow.completed' || event.type === 'workflow.failed'),
      );
      const record = await call<{ status: string; outputs: Record<string, { output?: string }>; error: string | null }>(
        `${env.api.url}/run/${started.body.runId}`,
        { headers: env.user.auth },
      );
      return { ...started.body, record: record.body, events: await env.events(started.body.sessionId) };
    };
    const done = await run('digest');
    expect(done.record.status).toBe('completed');
    expect(done.record.outputs.summary).toEqual({ output: 'short: Summarise: tides' });
    expect(done.record.outputs.tell).toEqual({ output: 'told: Tell the user: short: Summarise: tides' });
    const [started] = ofType(done.events, 'subagent.started');
    expect(started).toMatchObject({ toolCallId: 'node:summary', agent: summariser.name });
    expect(ofType(done.events, 'subagent.completed')).toHaveLength(1);
    const child = await call<{ agentId: string; parentSessionId: string }>(`${env.api.url}/session/${started!.childSessionId}`, {
      headers: env.user.auth,
    });
    expect(child.body).toMatchObject({ agentId: summariser.agentId, parentSessionId: done.sessionId });

    const delegated = await run('delegating');
    expect(delegated.record.status).toBe('completed');
    expect(delegated.record.outputs.work!.output).toContain('short: Summarise: waves');

    const failed = await run('failing');
    expect(failed.record.status).toBe('failed');
    expect(failed.record.error).toContain(`Node "summary": the agent "${broken.name}" ended failed`);
    expect(ofType(failed.events, 'subagent.failed')).toEqual([expect.objectContaining({ toolCallId: 'node:summary', status: 'failed' })]);
  });

  test("deploy refuses an unknown agent, another user's agent, a revision that does not exist, and a cycle, each located", async ({
    env,
  }) => {
    const known = await env.deploy({ instructions: 'ROLE known' });
    const stranger = await createTestUser(env.api.db);
    const theirs = `theirs-${known.name}`;
    const theirDeploy = await call(`${env.api.url}/deploy`, {
      headers: stranger.auth,
      json: { name: theirs, model: { providerId: 'openai-compatible', modelId: 'fake-model' } },
    });
    expect(theirDeploy.status).toBe(201);
    const deploy = (bundle: Record<string, unknown>) =>
      call<{ ok: boolean; errors: { path: string; message: string }[] }>(`${env.api.url}/deploy`, {
        headers: env.user.auth,
        json: { name: `caller-${known.name}`, model: { providerId: 'openai-compatible', modelId: 'fake-model' }, ...bundle },
      });
    const bad = await deploy({ agents: [{ name: 'nobody-here' }, { name: theirs }, { name: known.name, revision: 9 }] });
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toEqual([
      { path: '/agents/0/name', message: 'you have no agent named "nobody-here"' },
      { path: '/agents/1/name', message: `you have no agent named "${theirs}"` },
      { path: '/agents/2/revision', message: `the agent "${known.name}" has no revision 9 (its latest is 1)` },
    ]);
    const self = await deploy({ agents: [{ name: `caller-${known.name}` }] });
    expect(self.body.errors).toEqual([{ path: '/agents/0/name', message: 'an agent cannot call itself' }]);
    // A graph's agent node may name only an agent the bundle may call.
    const node = await deploy({ workflows: { flow: { start: 'a', nodes: { a: { type: 'agent', agent: known.name, prompt: 'Go' } } } } });
    expect(node.body.errors).toEqual([
      { path: '/workflows/flow/nodes/a/agent', message: `the agent "${known.name}" is not in \`agents\`, the agents this one may call` },
    ]);

    // a -> b deployed; then b -> a would close a cycle.
    const a = await env.deploy({ instructions: 'ROLE a' });
    const b = await env.deploy({ instructions: 'ROLE b' });
    const aCallsB = await call(`${env.api.url}/deploy`, {
      headers: env.user.auth,
      json: { name: a.name, model: { providerId: 'openai-compatible', modelId: 'fake-model' }, agents: [{ name: b.name }] },
    });
    expect(aCallsB.status).toBe(200);
    const bCallsA = await call<{ errors: { path: string; message: string }[] }>(`${env.api.url}/deploy`, {
      headers: env.user.auth,
      json: { name: b.name, model: { providerId: 'openai-compatible', modelId: 'fake-model' }, agents: [{ name: a.name }] },
    });
    expect(bCallsA.status).toBe(400);
    expect(bCallsA.body.errors).toEqual([
      { path: '/agents/0/name', message: `calling "${a.name}" makes a cycle: ${b.name} → ${a.name} → ${b.name}` },
    ]);
  });
});
