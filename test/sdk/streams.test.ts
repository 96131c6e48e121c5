// Streams that resume by themselves: a send's turn stream and client.events(), cut mid-turn by a
// proxy, still deliver every event of the turn exactly once, in seq order, and the text helper
// gives the stored reply.
import { describe, expect } from 'vitest';
import { agentTest } from '../helpers/harness/fixtures.ts';
import { startTestApi } from '../helpers/harness/api.ts';
import { Client, TextAccumulator, turnEventFilter, type SessionEvent } from '../../sdk/src/index.ts';
import { startCuttingProxy, type CuttingProxy } from './cutting-proxy.ts';

// A proxy in front of the file's API, cut by the tests that say so.
const test = agentTest().extend('proxy', { scope: 'file' }, async ({ env }, { onCleanup }): Promise<CuttingProxy> => {
  const proxy = await startCuttingProxy(env.api.url);
  onCleanup(() => proxy.close());
  return proxy;
});

const WORDS = Array.from({ length: 40 }, (_, index) => `word${index}`);

describe('a turn stream', () => {
  test('types its events, ends with the terminal event, and gives text, final message and json', async ({ env }) => {
    const client = new Client({ baseUrl: env.api.url, apiKey: env.user.apiKey });
    const sessionId = await env.newSession();
    env.fake.enqueue({ text: 'Hello there' });
    const stream = client.sessions.send(sessionId, 'hi');
    const seen: string[] = [];
    for await (const event of stream) {
      seen.push(event.type);
      if (event.type === 'message.part.delta') expect(typeof event.delta).toBe('string');
    }
    expect(seen[0]).toBe('message.created');
    expect(seen.at(-1)).toBe('turn.completed');
    expect(await stream.text()).toBe('Hello there');
    expect((await stream.finalMessage())?.role).toBe('assistant');
    expect((await stream.ready).messageId).toMatch(/^msg_/);
    expect(await stream.json()).toBeUndefined();
  });

  test('ifBusy: steer joins the running turn: the send follows that turn, whose next step reads the message', async ({ env }) => {
    const client = new Client({ baseUrl: env.api.url, apiKey: env.user.apiKey });
    const sessionId = await env.newSession();
    let release!: () => void;
    const asked = env.fake.requests.length;
    env.fake.enqueue({ text: 'First part.', holdUntil: new Promise<void>((resolve) => (release = resolve)) }, { text: 'Steered answer.' });
    const first = client.sessions.send(sessionId, 'Write about cats');
    const { turnId } = await first.ready;
    await env.fake.waitForRequests(asked + 1);
    const steered = client.sessions.send(sessionId, 'Make it about dogs', { ifBusy: 'steer' });
    expect((await steered.ready).turnId).toBe(turnId);
    await env.waitForEvents(sessionId, (events) => events.filter((event) => event.type === 'message.created').length >= 3);
    release();
    expect(await steered.text()).toBe('Steered answer.');
    expect(await first.text()).toBe('Steered answer.');
    const second = env.fake.requests[asked + 1]!.body.messages as { role: string; content: unknown }[];
    expect(JSON.stringify(second.at(-1)?.content)).toContain('Make it about dogs');
  });

  test('json() gives the structured reply of an agent with jsonReply', async ({ env }) => {
    const client = new Client({ baseUrl: env.api.url, apiKey: env.user.apiKey });
    const sessionId = await env.newSession({
      jsonReply: { schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
    });
    env.fake.enqueue({ text: '{"city": "Paris"}' });
    const stream = client.sessions.send(sessionId, 'Capital of France, as JSON');
    expect(await stream.json<{ city: string }>()).toEqual({ city: 'Paris' });
  });

  test('cut mid-turn, it resumes with Last-Event-ID: every event of the turn once, in seq order', async ({ env, proxy }) => {
    const client = new Client({ baseUrl: proxy.url, apiKey: env.user.apiKey });
    const sessionId = await env.newSession();
    env.fake.enqueue({ text: WORDS.map((word) => `${word} `), chunkDelayMs: 40 });
    const reconnections: number[] = [];
    const stream = client.sessions.send(sessionId, 'talk', { onReconnect: (lastSeq) => reconnections.push(lastSeq) });
    const received: SessionEvent[] = [];
    let cuts = 0;
    for await (const event of stream) {
      received.push(event);
      // Two cuts, at the 3rd and 8th delta: the second one on an already resumed stream.
      const deltas = received.filter((seen) => seen.type === 'message.part.delta').length;
      if (event.type === 'message.part.delta' && (deltas === 3 || deltas === 8) && cuts < 2) {
        cuts++;
        proxy.cutAll();
      }
    }
    expect(cuts).toBe(2);
    expect(reconnections.length).toBeGreaterThanOrEqual(2);
    const seqs = received.map((event) => event.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(new Set(seqs).size).toBe(seqs.length);
    const { messageId } = await stream.ready;
    const keep = turnEventFilter(messageId);
    const stored = (await env.events(sessionId)).filter((event) => keep(event));
    expect(received).toEqual(stored);
    expect(received.at(-1)!.type).toBe('turn.completed');
    expect(await stream.text()).toBe(WORDS.map((word) => `${word} `).join(''));
  });

  test('its API process closed mid-turn and another one started: the stream completes with every seq once', async ({ env }) => {
    // An API of its own behind a proxy (the file's API serves the other tests), replaced mid-turn.
    const first = await startTestApi(env.env);
    const proxy = await startCuttingProxy(first.url);
    let second: Awaited<ReturnType<typeof startTestApi>> | undefined;
    try {
      const client = new Client({ baseUrl: proxy.url, apiKey: env.user.apiKey });
      const sessionId = await env.newSession();
      env.fake.enqueue({ text: WORDS.map((word) => `${word} `), chunkDelayMs: 40 });
      let reconnections = 0;
      const stream = client.sessions.send(sessionId, 'talk', { onReconnect: () => reconnections++ });
      const received: SessionEvent[] = [];
      for await (const event of stream) {
        received.push(event);
        if (event.type === 'message.part.delta' && !second) {
          second = await startTestApi(env.env);
          proxy.retarget(second.url);
          await first.close();
        }
      }
      expect(second).toBeDefined();
      expect(reconnections).toBeGreaterThanOrEqual(1);
      const keep = turnEventFilter((await stream.ready).messageId);
      expect(received).toEqual((await env.events(sessionId)).filter((event) => keep(event)));
      expect(await stream.text()).toBe(WORDS.map((word) => `${word} `).join(''));
    } finally {
      await proxy.close();
      await second?.close();
      await first.close().catch(() => {});
    }
  });

  test('an abort signal ends the stream with APIUserAbortError', async ({ env }) => {
    const client = new Client({ baseUrl: env.api.url, apiKey: env.user.apiKey });
    const sessionId = await env.newSession();
    env.fake.enqueue({ text: WORDS, chunkDelayMs: 50 });
    const stop = new AbortController();
    const stream = client.sessions.send(sessionId, 'talk', { signal: stop.signal });
    const consumed = (async () => {
      for await (const event of stream) if (event.type === 'message.part.delta') stop.abort();
    })();
    await expect(consumed).rejects.toMatchObject({ name: 'APIUserAbortError' });
    await client.sessions.abort(sessionId);
  });
});

describe('client.events', () => {
  test('replay then live, cut twice, every event of the session once in seq order', async ({ env, proxy }) => {
    const client = new Client({ baseUrl: proxy.url, apiKey: env.user.apiKey });
    const sessionId = await env.newSession();
    env.fake.enqueue({ text: 'before' });
    await client.sessions.sendAndWait(sessionId, 'first');
    env.fake.enqueue({ text: WORDS.map((word) => `${word} `), chunkDelayMs: 30 });
    await client.sessions.sendAsync(sessionId, 'second');
    const received: SessionEvent[] = [];
    const stop = new AbortController();
    let ends = 0;
    let cuts = 0;
    for await (const event of client.events(sessionId, { follow: true, signal: stop.signal })) {
      received.push(event);
      if (event.type === 'message.part.delta' && cuts < 2 && received.length % 5 === 0) {
        cuts++;
        proxy.cutAll();
      }
      if (event.type === 'turn.completed' && ++ends === 2) break;
    }
    expect(cuts).toBe(2);
    expect(received).toEqual(await env.events(sessionId));
    expect(received.map((event) => event.seq)).toEqual(received.map((_, index) => index + 1));
  });
});

describe('the text accumulator', () => {
  test("drops a message's text at its step.retry, and everything at a new turn.started", () => {
    const base = { at: '2026-01-01T00:00:00Z', sessionId: 'ses_1' };
    const accumulator = new TextAccumulator();
    const events: SessionEvent[] = [
      { ...base, seq: 1, type: 'turn.started', turnId: 'msg_1' },
      { ...base, seq: 2, type: 'message.part.delta', messageId: 'msg_2', delta: 'Hel' },
      { ...base, seq: 3, type: 'step.retry', messageId: 'msg_2', attempt: 2 },
      { ...base, seq: 4, type: 'message.part.delta', messageId: 'msg_2', delta: 'Hello' },
      { ...base, seq: 5, type: 'message.part.delta', messageId: 'msg_2', delta: ' world' },
    ];
    for (const event of events) accumulator.apply(event);
    expect(accumulator.text).toBe('Hello world');
    accumulator.apply({ ...base, seq: 6, type: 'turn.started', turnId: 'msg_3' });
    expect(accumulator.text).toBe('');
  });
});
