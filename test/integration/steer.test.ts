// Steering a busy session (ifBusy=steer): the message joins the running turn and its next model step
// reads it, instead of waiting for a turn of its own.
import { describe, expect } from 'vitest';
import { agentTest } from '../helpers/harness/fixtures.ts';
import { call } from '../helpers/client/request.ts';
import { messageText } from '../helpers/fakes/fake-model.ts';

const test = agentTest();

describe('ifBusy=steer', () => {
  test('a message sent while a turn streams joins it: the next step reads it, and no other turn runs', async ({ env }) => {
    const sessionId = await env.newSession();
    const before = env.fake.requests.length;
    // The first step streams slowly, so the steering message arrives while it runs.
    env.fake.enqueue(
      { text: ['Writing a long ', 'poem about ', 'the sea...'], chunkDelayMs: 500 },
      { text: 'A short poem about mountains.' },
    );
    const first = call<{ status: string; reply: string }>(`${env.api.url}/session/${sessionId}`, {
      headers: env.user.auth,
      json: { parts: [{ type: 'text', text: 'Write a poem about the sea' }] },
    });
    await env.waitForEvents(sessionId, (events) => events.some((event) => event.type === 'message.part.delta'));
    const steer = await call<{ messageId: string; status: string; reply: string }>(`${env.api.url}/session/${sessionId}?ifBusy=steer`, {
      headers: env.user.auth,
      json: { parts: [{ type: 'text', text: 'Actually, make it about mountains' }] },
    });
    // The steering send is answered with the turn it joined.
    expect(steer.body).toMatchObject({
      status: 'completed',
      reply: 'A short poem about mountains.',
      messageId: expect.stringMatching(/^msg_/),
    });
    expect((await first).body).toMatchObject({ status: 'completed', reply: 'A short poem about mountains.' });

    const requests = env.fake.requests.slice(before);
    expect(requests).toHaveLength(2);
    const seen = requests[1]!.body.messages.map((message) => `${message.role}: ${messageText(message) ?? ''}`);
    expect(seen.slice(-3)).toEqual([
      'user: Write a poem about the sea',
      'assistant: Writing a long poem about the sea...',
      'user: Actually, make it about mountains',
    ]);
    const events = await env.events(sessionId);
    expect(events.filter((event) => event.type === 'turn.started')).toHaveLength(1);
    expect(events.filter((event) => event.type === 'turn.completed')).toHaveLength(1);
  });

  test('with no turn running it is an ordinary send', async ({ env }) => {
    const sessionId = await env.newSession();
    env.fake.enqueue({ text: 'Hello.' });
    const reply = await call<{ status: string; reply: string }>(`${env.api.url}/session/${sessionId}?ifBusy=steer`, {
      headers: env.user.auth,
      json: { parts: [{ type: 'text', text: 'hi' }] },
    });
    expect(reply.body).toMatchObject({ status: 'completed', reply: 'Hello.' });
  });
});
