// A custom command through the SDK in the three forms of a send, against the real service: streamed
// (the TurnStream of a send, naming the session the command opened, and resuming when its connection
// is cut mid-turn), accepted at once (then followed with client.events), and waited for.
import { describe, expect } from 'vitest';
import { agentTest } from '../helpers/harness/fixtures.ts';
import { Client, turnEventFilter, type SessionEvent } from '../../sdk/src/index.ts';
import { startCuttingProxy, type CuttingProxy } from './cutting-proxy.ts';

const test = agentTest().extend('proxy', { scope: 'file' }, async ({ env }, { onCleanup }): Promise<CuttingProxy> => {
  const proxy = await startCuttingProxy(env.api.url);
  onCleanup(() => proxy.close());
  return proxy;
});

const COMMAND = { command: { review: { template: 'Review ${1}, tone: ${tone}.' } } };
const WORDS = Array.from({ length: 30 }, (_, index) => `point${index} `);

describe('agents.runCommand', () => {
  test('streamed: the turn of the resolved prompt in the session the command opened, every event once across a cut', async ({
    env,
    proxy,
  }) => {
    const { name } = await env.deploy(COMMAND);
    const client = new Client({ baseUrl: proxy.url, apiKey: env.user.apiKey });
    env.fake.enqueue({ text: WORDS, chunkDelayMs: 40 });
    let reconnections = 0;
    const stream = client.agents.runCommandStream(
      name,
      'review',
      { args: ['app.ts'], flags: { tone: 'kind' } },
      { onReconnect: () => reconnections++ },
    );
    const received: SessionEvent[] = [];
    let cut = false;
    for await (const event of stream) {
      received.push(event);
      if (event.type === 'message.part.delta' && !cut) {
        cut = true;
        proxy.cutAll();
      }
    }
    expect(reconnections).toBeGreaterThanOrEqual(1);
    const { sessionId, messageId } = await stream.ready;
    const session = await client.sessions.retrieve(sessionId);
    expect(session.messages[0]).toMatchObject({
      id: messageId,
      role: 'user',
      parts: [{ type: 'text', text: 'Review app.ts, tone: kind.' }],
    });
    const keep = turnEventFilter(messageId);
    expect(received).toEqual((await env.events(sessionId)).filter((event) => keep(event)));
    expect(received.at(-1)!.type).toBe('turn.completed');
    expect(await stream.text()).toBe(WORDS.join(''));
  });

  test('streamed into a session named, as a send into it', async ({ env }) => {
    const { name } = await env.deploy(COMMAND);
    const client = new Client({ baseUrl: env.api.url, apiKey: env.user.apiKey });
    const { id } = await client.sessions.create(name);
    env.fake.enqueue({ text: 'Looks fine.' });
    const stream = client.agents.runCommandStream(name, 'review', { args: ['db.ts'], flags: { tone: 'dry' }, sessionId: id });
    expect(await stream.text()).toBe('Looks fine.');
    expect((await stream.ready).sessionId).toBe(id);
  });

  test('async: accepted at once with the session, whose events then show the turn', async ({ env }) => {
    const { name } = await env.deploy(COMMAND);
    const client = new Client({ baseUrl: env.api.url, apiKey: env.user.apiKey });
    env.fake.enqueue({ text: 'Later.' });
    const accepted = await client.agents.runCommandAsync(name, 'review', { args: ['x.ts'], flags: { tone: 'brief' } });
    expect(accepted.messageId).toMatch(/^msg_/);
    const keep = turnEventFilter(accepted.messageId);
    const types: string[] = [];
    for await (const event of client.events(accepted.sessionId, { follow: true })) {
      if (!keep(event)) continue;
      types.push(event.type);
      if (event.type === 'turn.completed') break;
    }
    expect(types[0]).toBe('message.created');
    expect(types).toContain('message.completed');
  });

  test('waited for: the reply and the session', async ({ env }) => {
    const { name } = await env.deploy(COMMAND);
    const client = new Client({ baseUrl: env.api.url, apiKey: env.user.apiKey });
    env.fake.enqueue({ text: 'Done.' });
    const reply = await client.agents.runCommand(name, 'review', { args: ['y.ts'], flags: { tone: 'calm' } });
    expect(reply).toMatchObject({ status: 'completed', reply: 'Done.' });
    expect((await client.sessions.retrieve(reply.sessionId)).messages.map((message) => message.role)).toEqual(['user', 'assistant']);
  });
});
