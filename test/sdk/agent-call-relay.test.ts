// The events of the agents a turn calls, relayed on the caller's stream when the client asks
// (`?children=1`, the SDK's `onChildEvent`): a child's deltas and its end, and a grandchild's, each
// wrapped with the call it belongs to, never among the caller's own events; a stream that did not ask
// has none; a reconnecting stream relays a call still running from its child's turn start.
import { describe, expect } from 'vitest';
import { agentTest } from '../helpers/harness/fixtures.ts';
import { messageText, type FakeRequest, type FakeScript } from '../helpers/fakes/fake-model.ts';
import { Client, type RelayedEvent, type SessionEvent } from '../../sdk/src/index.ts';
import { parseServerSentEvents } from '../../sdk/src/sse.ts';

const test = agentTest({ AGENT_CALL_DEPTH_LIMIT: '2' });

const systemOf = (request: FakeRequest) => messageText(request.body.messages.find((message) => message.role === 'system')) ?? '';
const afterTools = (request: FakeRequest) => request.body.messages.at(-1)?.role === 'tool';

/** lead → middle → leaf: each caller calls the next once, then says what it read. */
function chain(names: { middle: string; leaf: string }, leafScript: FakeScript = { text: 'The leaf says hello.' }) {
  return (request: FakeRequest): FakeScript => {
    const system = systemOf(request);
    if (system.includes('ROLE leaf')) return leafScript;
    if (system.includes('ROLE middle'))
      return afterTools(request)
        ? { text: 'Middle passed it on.' }
        : { toolCalls: [{ id: 'call_leaf', name: `agent_${names.leaf}`, arguments: { message: 'Say hello' } }] };
    return afterTools(request)
      ? { text: 'Lead is done.' }
      : { toolCalls: [{ id: 'call_middle', name: `agent_${names.middle}`, arguments: { message: 'Ask the leaf' } }] };
  };
}

const deltasOf = (relayed: RelayedEvent[], sessionId: string) =>
  relayed
    .map((frame) => frame.event)
    .filter((event) => event.sessionId === sessionId && event.type === 'message.part.delta')
    .map((event) => (event as Extract<SessionEvent, { type: 'message.part.delta' }>).delta)
    .join('');

describe("a caller's stream relays its children's events on request", () => {
  test("a child's and a grandchild's deltas and ends come wrapped with their calls, apart from the turn's own events", async ({ env }) => {
    const leaf = await env.deploy({ instructions: 'ROLE leaf' });
    const middle = await env.deploy({ instructions: 'ROLE middle', agents: [{ name: leaf.name }] });
    const lead = await env.deploy({ instructions: 'ROLE lead', agents: [{ name: middle.name }] });
    env.fake.setHandler(chain({ middle: middle.name, leaf: leaf.name }));
    const client = new Client({ baseUrl: env.api.url, apiKey: env.user.apiKey });
    const { id } = await client.sessions.create(lead.name);

    const relayed: RelayedEvent[] = [];
    const stream = client.sessions.send(id, 'Go', { onChildEvent: (frame) => relayed.push(frame) });
    const own: SessionEvent[] = [];
    for await (const event of stream) own.push(event);
    expect(await stream.text()).toBe('Lead is done.');
    expect(own.every((event) => event.sessionId === id)).toBe(true);

    const started = own.find((event) => event.type === 'subagent.started')!;
    expect(started).toBeDefined();
    const middleId = (started as Extract<SessionEvent, { type: 'subagent.started' }>).childSessionId;
    const leafStart = relayed.find((frame) => frame.event.type === 'subagent.started')!;
    const leafId = (leafStart.event as Extract<SessionEvent, { type: 'subagent.started' }>).childSessionId;

    // Each child's text arrives whole, and ends with its turn's end, wrapped with the call that opened it.
    expect(deltasOf(relayed, middleId)).toBe('Middle passed it on.');
    expect(deltasOf(relayed, leafId)).toBe('The leaf says hello.');
    const ends = relayed.filter((frame) => frame.event.type === 'turn.completed');
    expect(ends.map((frame) => [frame.event.sessionId, frame.parentSessionId, frame.toolCallId, frame.agent])).toEqual(
      expect.arrayContaining([
        [middleId, id, 'call_middle', middle.name],
        [leafId, middleId, 'call_leaf', leaf.name],
      ]),
    );
    expect(relayed.every((frame) => frame.type === 'subagent.event' && frame.sessionId === id)).toBe(true);
  });

  test('a stream that did not ask relays nothing; a reconnect relays a call still running from its turn start', async ({ env }) => {
    const leaf = await env.deploy({ instructions: 'ROLE leaf' });
    const middle = await env.deploy({ instructions: 'ROLE middle', agents: [{ name: leaf.name }] });
    const lead = await env.deploy({ instructions: 'ROLE lead', agents: [{ name: middle.name }] });
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    env.fake.setHandler(chain({ middle: middle.name, leaf: leaf.name }, { text: 'Slow hello.', holdUntil: held }));
    const client = new Client({ baseUrl: env.api.url, apiKey: env.user.apiKey });
    const { id } = await client.sessions.create(lead.name);

    // Without asking: the raw SSE answer of the send has no relayed frame.
    const plain = fetch(`${env.api.url}/session/${id}`, {
      method: 'POST',
      headers: { ...env.user.auth, 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ parts: [{ type: 'text', text: 'Go' }] }),
    });
    const events = await env.waitForEvents(id, (all) => all.some((event) => event.type === 'subagent.started'));
    const startedSeq = events.find((event) => event.type === 'subagent.started')!.seq;

    // A client reconnecting after the call began (Last-Event-ID past its subagent.started) and asking
    // for children gets the running call relayed from its child's turn start.
    const controller = new AbortController();
    const relayed: RelayedEvent[] = [];
    const resumed = (async () => {
      for await (const event of client.events(id, {
        follow: true,
        after: startedSeq,
        signal: controller.signal,
        onChildEvent: (frame) => relayed.push(frame),
      })) {
        if (event.type === 'turn.completed') return;
      }
    })();
    release();
    await resumed;
    controller.abort();
    const leafEnd = relayed.find((frame) => frame.agent === leaf.name && frame.event.type === 'turn.completed');
    expect(leafEnd).toBeDefined();
    expect(deltasOf(relayed, leafEnd!.event.sessionId)).toBe('Slow hello.');
    expect(relayed.some((frame) => frame.agent === middle.name && frame.event.type === 'message.created')).toBe(true);

    const frames: string[] = [];
    for await (const frame of parseServerSentEvents((await plain).body!)) frames.push(frame.event);
    expect(frames).toContain('turn.completed');
    expect(frames).not.toContain('subagent.event');
  });

  test("a replay of the session from its start relays each past call's own turn, a conversation's later call included", async ({ env }) => {
    const helper = await env.deploy({ instructions: 'ROLE helper' });
    const lead = await env.deploy({ instructions: 'ROLE lead', agents: [{ name: helper.name }] });
    let helperReplies = 0;
    env.fake.setHandler((request) => {
      if (systemOf(request).includes('ROLE helper')) return { text: `Helper reply ${++helperReplies}.` };
      if (afterTools(request)) return { text: 'Lead read it.' };
      // The second turn continues the conversation the first one opened (the sessionId of its result).
      const earlier = request.body.messages.map((message) => messageText(message) ?? '').find((text) => text.includes('"sessionId"'));
      const sessionId = earlier ? (JSON.parse(earlier) as { sessionId: string }).sessionId : undefined;
      return {
        toolCalls: [
          {
            id: `call_${request.index}`,
            name: `agent_${helper.name}`,
            arguments: { message: 'Help', ...(sessionId ? { sessionId } : {}) },
          },
        ],
      };
    });
    const client = new Client({ baseUrl: env.api.url, apiKey: env.user.apiKey });
    const { id } = await client.sessions.create(lead.name);
    await client.sessions.send(id, 'First').text();
    await client.sessions.send(id, 'Second').text();
    const children = (await client.sessions.retrieve(id)).childSessions ?? [];
    expect(children).toHaveLength(1);

    const controller = new AbortController();
    const relayed: RelayedEvent[] = [];
    const childEnds = () => relayed.filter((frame) => frame.event.type === 'turn.completed');
    const replay = (async () => {
      for await (const _event of client.events(id, {
        follow: true,
        after: 0,
        signal: controller.signal,
        onChildEvent: (frame) => relayed.push(frame),
      }))
        if (childEnds().length >= 2) return;
    })().catch(() => undefined);
    // Ends as soon as both are relayed; the deadline is for a machine a heavy test file beside it holds (a full
    // CI run once took past 10 s here, its workflow tasks 8 s each while approval-answer-race ran).
    for (const deadline = Date.now() + 30_000; childEnds().length < 2 && Date.now() < deadline;)
      await new Promise((r) => setTimeout(r, 50));
    controller.abort();
    await replay;
    expect(childEnds().map((frame) => frame.event.sessionId)).toEqual([children[0]!.id, children[0]!.id]);
    // Each call relays its own turn of the conversation, whole. The two relays run at once (docs/tools.md), so
    // their frames may interleave: they are told apart by their calls, in the order the calls were made.
    const callIndex = (toolCallId: string) => Number(toolCallId.replace('call_', ''));
    const calls = [...new Set(relayed.map((frame) => frame.toolCallId))].sort((a, b) => callIndex(a) - callIndex(b));
    expect(
      calls.map((toolCallId) =>
        deltasOf(
          relayed.filter((frame) => frame.toolCallId === toolCallId),
          children[0]!.id,
        ),
      ),
    ).toEqual(['Helper reply 1.', 'Helper reply 2.']);
  });
});
