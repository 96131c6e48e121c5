// A turn stream whose API process dies mid-turn (SIGKILL: no goodbye, its connections just break)
// while another API process takes over behind the same address, as a load balancer would send the
// client elsewhere: the SDK reconnects with Last-Event-ID and the stream still delivers every event
// of the turn exactly once, in seq order, equal to the stored log.
import { expect } from 'vitest';
import { agentTest } from '../helpers/harness/fixtures.ts';
import { startApiProcess } from '../helpers/harness/api-process.ts';
import { Client, turnEventFilter, type SessionEvent } from '../../sdk/src/index.ts';
import { startCuttingProxy } from './cutting-proxy.ts';

const test = agentTest();
const WORDS = Array.from({ length: 60 }, (_, index) => `word${index} `);

test(
  'its API process killed mid-turn and another one serving: the stream completes with every seq once',
  { timeout: 120_000 },
  async ({ env }) => {
    // Both up before the turn: the kill happens while the turn streams, not seconds later.
    const [first, second] = await Promise.all([startApiProcess(env.env), startApiProcess(env.env)]);
    const proxy = await startCuttingProxy(first.url);
    let killed = false;
    try {
      const client = new Client({ baseUrl: proxy.url, apiKey: env.user.apiKey });
      const sessionId = await env.newSession();
      env.fake.enqueue({ text: WORDS, chunkDelayMs: 80 });
      let reconnections = 0;
      const stream = client.sessions.send(sessionId, 'talk', { onReconnect: () => reconnections++ });
      const received: SessionEvent[] = [];
      for await (const event of stream) {
        received.push(event);
        if (event.type === 'message.part.delta' && !killed) {
          killed = true;
          proxy.retarget(second.url);
          await first.kill('SIGKILL');
        }
      }
      expect(first.process.signalCode).toBe('SIGKILL');
      expect(reconnections).toBeGreaterThanOrEqual(1);
      const seqs = received.map((event) => event.seq);
      expect(seqs).toEqual([...new Set(seqs)].sort((a, b) => a - b));
      const keep = turnEventFilter((await stream.ready).messageId);
      expect(received).toEqual((await env.events(sessionId)).filter((event) => keep(event)));
      expect(received.at(-1)?.type).toBe('turn.completed');
      expect(await stream.text()).toBe(WORDS.join(''));
    } finally {
      await proxy.close();
      await second.kill('SIGTERM');
      await first.kill('SIGKILL');
    }
  },
);
