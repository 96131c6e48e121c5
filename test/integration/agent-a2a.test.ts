// Each agent as an A2A agent (v1.0), driven by the official A2A SDK's client and nothing of ours on the
// client side: the card (its endpoint, Bearer sign-in, skills), a message and its task (the turn, in the
// session that is its context), a stream of the reply, tasks read and listed, a cancellation that aborts
// the turn, a turn that waits on a client as input-required, and another user's task out of reach.
import { describe, expect } from 'vitest';
import type { StreamResponse, Task } from '@a2a-js/sdk';
import { clientOf, request, strangerWithSameAgent } from '../helpers/client/a2a-client.ts';
import { agentTest } from '../helpers/harness/fixtures.ts';
import { call } from '../helpers/client/request.ts';

const test = agentTest();

const COMPLETED = 3;
const CANCELED = 5;
const INPUT_REQUIRED = 6;

const LOOKUP = {
  id: 'lookup_order',
  description: 'Look up an order in the shop system',
  parameters: { type: 'object', properties: { orderId: { type: 'string' } }, required: ['orderId'], additionalProperties: false },
};

const replyOf = (task: Task) =>
  task.artifacts
    .flatMap((artifact) => artifact.parts.flatMap((part) => (part.content?.$case === 'text' ? [part.content.value] : [])))
    .join('');

const asTask = (result: unknown) => {
  expect((result as Task).status).toBeDefined();
  return result as Task;
};

describe('an agent as an A2A agent', () => {
  test('the card; a message is a task in a context (the session); a reply streams; tasks read and listed', async ({ env }) => {
    const { name } = await env.deploy({ command: { review: { template: 'Review ${1}.' } } });
    const card = await call<{ name: string; supportedInterfaces: { url: string; protocolBinding: string }[]; skills: { id: string }[] }>(
      `${env.api.url}/agent/${name}/a2a/.well-known/agent-card.json`,
      { headers: env.user.auth },
    );
    expect(card.body.supportedInterfaces).toEqual([
      expect.objectContaining({ url: `${env.api.url}/agent/${name}/a2a`, protocolBinding: 'JSONRPC' }),
    ]);
    expect(card.body.skills.map((skill) => skill.id)).toEqual(['talk', 'command_review']);

    const client = await clientOf(env, name);
    env.fake.enqueue({ text: 'Hello over A2A.' });
    const first = asTask(await client.sendMessage(request('Hi')));
    expect(first.status!.state).toBe(COMPLETED);
    expect(first.id).toMatch(/^msg_/);
    expect(first.contextId).toMatch(/^ses_/);
    expect(replyOf(first)).toBe('Hello over A2A.');

    // The same context again, streamed: the task first, the reply's text as it is written, the task at the end.
    env.fake.enqueue({ text: 'Streamed, word by word.', chunkDelayMs: 5 });
    const seen: StreamResponse['payload'][] = [];
    for await (const update of client.sendMessageStream(request('Again', { contextId: first.contextId }))) seen.push(update.payload);
    const last = seen.at(-1)!;
    expect(last?.$case).toBe('task');
    const streamed = last!.value as Task;
    expect(streamed.contextId).toBe(first.contextId);
    expect(streamed.status!.state).toBe(COMPLETED);
    const deltas = seen.flatMap((payload) =>
      payload?.$case === 'artifactUpdate'
        ? payload.value.artifact!.parts.map((part) => (part.content?.$case === 'text' ? part.content.value : ''))
        : [],
    );
    expect(deltas.join('')).toBe('Streamed, word by word.');

    const read = await client.getTask({ tenant: '', id: first.id });
    expect(replyOf(read)).toBe('Hello over A2A.');
    const listed = await client.listTasks({
      tenant: '',
      contextId: first.contextId,
      status: 0,
      pageToken: '',
      statusTimestampAfter: undefined,
    });
    expect(listed.tasks.map((task) => task.id)).toEqual([streamed.id, first.id]);

    // A normal turn: its session's events say so. A custom command runs from its metadata.
    expect((await env.events(first.contextId)).filter((event) => event.type === 'turn.completed')).toHaveLength(2);
    env.fake.enqueue({ text: 'Reviewed.' });
    const reviewed = asTask(await client.sendMessage(request('', { metadata: { command: 'review', args: ['pr-7'] } })));
    expect(replyOf(reviewed)).toBe('Reviewed.');
  });

  test('a turn that waits on a client is input-required; a cancellation aborts a running turn', async ({ env }) => {
    const { name } = await env.deploy({ customTools: [LOOKUP] });
    const client = await clientOf(env, name);
    env.fake.enqueue({ toolCalls: [{ id: 'call_1', name: 'lookup_order', arguments: { orderId: 'A-1' } }] });
    const waiting = asTask(await client.sendMessage(request('Where is A-1?')));
    expect(waiting.status!.state).toBe(INPUT_REQUIRED);
    const said = waiting.status!.message!.parts.map((part) => (part.content?.$case === 'text' ? part.content.value : '')).join('');
    expect(said).toContain(`/session/${waiting.contextId}/tool-result`);

    env.fake.enqueue({ text: 'never ending ', endless: true, chunkDelayMs: 20 });
    const running = asTask(await client.sendMessage(request('Go on forever', {}, true)));
    expect([1, 2]).toContain(running.status!.state);
    await env.waitForEvents(running.contextId, (events) => events.some((event) => event.type === 'turn.started'));
    const canceled = await client.cancelTask({ tenant: '', id: running.id, metadata: undefined });
    expect(canceled.status!.state).toBe(CANCELED);
    expect((await env.events(running.contextId)).some((event) => event.type === 'turn.aborted')).toBe(true);
  });

  test("a read key starts no task; another user's tasks and contexts are out of reach", async ({ env }) => {
    const { name } = await env.deploy();
    const client = await clientOf(env, name);
    env.fake.enqueue({ text: 'Mine.' });
    const mine = asTask(await client.sendMessage(request('Hi')));

    const minted = await call<{ key: string }>(`${env.api.url}/key`, {
      headers: env.user.auth,
      json: { name: 'a2a-read', scopes: ['read'] },
    });
    const reader = await clientOf(env, name, minted.body.key);
    await expect(reader.sendMessage(request('Hi'))).rejects.toThrow(/sessions:write/);
    expect(replyOf(await reader.getTask({ tenant: '', id: mine.id }))).toBe('Mine.');

    const stranger = await strangerWithSameAgent(env, name);
    await expect(stranger.getTask({ tenant: '', id: mine.id })).rejects.toThrow();
    await expect(stranger.sendMessage(request('Hi', { contextId: mine.contextId }))).rejects.toThrow(/another user/);
  });

  test('a regenerated reply is its task’s; pages; malformed requests are the protocol’s errors; a waiting task takes no message', async ({
    env,
  }) => {
    const { name } = await env.deploy({ customTools: [LOOKUP], command: { review: { template: 'Review $ARGUMENTS.' } } });
    const client = await clientOf(env, name);
    env.fake.enqueue({ text: 'First answer.' });
    const task = asTask(await client.sendMessage(request('Hi')));
    const replyId = task.history.at(-1)!.messageId;
    env.fake.enqueue({ text: 'Second thoughts.' });
    const regenerated = await call(`${env.api.url}/session/${task.contextId}/regenerate`, {
      headers: env.user.auth,
      json: { assistantMessageId: replyId },
    });
    expect(regenerated.status).toBe(200);
    const again = await client.getTask({ tenant: '', id: task.id });
    expect(again.status!.state).toBe(COMPLETED);
    expect(replyOf(again)).toBe('Second thoughts.');

    // Pages of one, newest first, with the whole count.
    env.fake.enqueue({ text: 'Two.' });
    const second = asTask(await client.sendMessage(request('Two', { contextId: task.contextId })));
    const first = await client.listTasks({
      tenant: '',
      contextId: task.contextId,
      status: 0,
      pageSize: 1,
      pageToken: '',
      statusTimestampAfter: undefined,
    });
    expect(first.tasks.map((each) => each.id)).toEqual([second.id]);
    expect(first.totalSize).toBe(2);
    const next = await client.listTasks({
      tenant: '',
      contextId: task.contextId,
      status: 0,
      pageSize: 1,
      pageToken: first.nextPageToken,
      statusTimestampAfter: undefined,
    });
    expect(next.tasks.map((each) => each.id)).toEqual([task.id]);
    expect(next.nextPageToken).toBe('');

    // Malformed: a page size out of range, a command's arguments of the wrong type; neither is an internal error.
    await expect(
      client.listTasks({ tenant: '', contextId: '', status: 0, pageSize: 1000, pageToken: '', statusTimestampAfter: undefined }),
    ).rejects.toThrow(/pageSize/);
    await expect(client.sendMessage(request('', { metadata: { command: 'review', args: 'not a list' } }))).rejects.toThrow(/args/);

    // A task waiting on a client's tool result takes no message: it says where the result goes.
    env.fake.enqueue({ toolCalls: [{ id: 'call_9', name: 'lookup_order', arguments: { orderId: 'B-2' } }] });
    const waiting = asTask(await client.sendMessage(request('Where is B-2?')));
    expect(waiting.status!.state).toBe(INPUT_REQUIRED);
    await expect(client.sendMessage(request('Here it is', { taskId: waiting.id, contextId: waiting.contextId }))).rejects.toThrow(
      /tool-result/,
    );
  });
});
