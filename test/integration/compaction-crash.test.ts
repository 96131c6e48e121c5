// A compaction survives its worker: SIGKILLed while the summarising call streams, the compaction is
// retried on another worker (its heartbeat stops), stores its summary once, and the turn that needed it
// completes with the summary.
import { expect } from 'vitest';
import { agentTest } from '../helpers/harness/fixtures.ts';
import { startWorkerProcess, workersKilledAfterAll } from '../helpers/harness/worker-process.ts';
import { call } from '../helpers/client/request.ts';
import { messageText } from '../helpers/fakes/fake-model.ts';
import type { MessageView, SessionEvent } from '../../contract/events.ts';
import { filler, isSummarising } from '../helpers/fakes/compaction-requests.ts';

// The service knows the fake's window from the start: the turn compacts before it is refused.
const test = agentTest(
  { MODEL_STEP_HEARTBEAT_TIMEOUT_MS: '2000', MODEL_STEP_RETRY_INITIAL_MS: '100', MODEL_CONTEXT_WINDOWS: 'fake-model=4000' },
  { inProcessWorker: false },
);
const workers = workersKilledAfterAll();

test(
  'SIGKILL of the worker mid-compaction: another worker compacts once, and the turn completes',
  { timeout: 180_000 },
  async ({ env }) => {
    workers.push(await startWorkerProcess(env.env));
    env.fake.setContextWindow(4_000);
    let summarising = 0;
    // The first summarising call hangs (its worker dies with it); the next one answers.
    env.fake.setHandler((request) => {
      if (!isSummarising(request)) return { text: filler('answer') };
      return ++summarising === 1 ? { text: 'never', stallAfterChunks: 0 } : { text: 'SUMMARY written after the crash' };
    });
    const sessionId = await env.newSession();
    const send = (index: number) =>
      call<{ status: string; messageId: string }>(`${env.api.url}/session/${sessionId}?async=1`, {
        headers: env.user.auth,
        json: { parts: [{ type: 'text', text: `question-${index} ${filler(`q${index}`)}` }] },
      });
    const completed = (count: number) => (events: SessionEvent[]) =>
      events.filter((event) => event.type === 'turn.completed').length >= count;

    // Turns until one needs a compaction: its summarising call then hangs.
    let turns = 0;
    while (summarising === 0) {
      expect((await send(++turns)).status).toBe(202);
      await Promise.race([
        env.waitForEvents(sessionId, completed(turns), 60_000),
        (async () => {
          while (summarising === 0) await new Promise((resolve) => setTimeout(resolve, 50));
        })(),
      ]);
      expect(turns).toBeLessThan(10);
    }
    await workers[0]!.kill('SIGKILL');
    workers.push(await startWorkerProcess(env.env));

    const events = await env.waitForEvents(sessionId, completed(turns), 120_000);
    expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
    expect(events.filter((event) => event.type === 'turn.failed')).toHaveLength(0);
    const compacted = events.filter((event) => event.type === 'session.compacted');
    expect(compacted).toHaveLength(1);
    expect(summarising).toBe(2);

    const session = await call<{ messages: MessageView[] }>(`${env.api.url}/session/${sessionId}`, { headers: env.user.auth });
    const summaries = session.body.messages.filter((message) => message.role === 'summary');
    expect(summaries).toHaveLength(1);
    expect(summaries[0]!.parts).toContainEqual({ type: 'text', text: 'SUMMARY written after the crash' });
    // The turn that needed it was answered with the summary in its request.
    const last = env.fake.requests.filter((request) => !isSummarising(request)).at(-1)!;
    expect(last.body.messages.map((message) => messageText(message) ?? '').join('\n')).toContain('SUMMARY written after the crash');
    env.fake.setHandler(undefined);
  },
);
