// One user floods, another one asks: how long the quiet user's turns take while a flooding user has
// FLOOD turns running on a slow model (sent one after another for as long as the flood lasts), beside
// the same turns with nobody flooding. The ratio is what
// the flood costs everyone else. Measured twice: with RUNNING_TURNS_PER_USER below the flood (past
// it the flooder's turns wait, `turn.queued`, instead of taking more of the worker) and with a limit
// the flood never reaches. API, worker and fake model share one process here, as in every bench.
import http from 'node:http';
import type { Benchmark } from './benchmark.ts';
import type { Infra } from './infra.ts';
import { startAgentStack } from './agent-stack.ts';
import { summarize } from './measure.ts';

const FLOOD = 100;
const QUIET_TURNS = 5;
/** The flood's model: this many chunks, this far apart (about 4 s a turn). */
const SLOW_CHUNKS = 40;
const SLOW_CHUNK_MS = 100;
const ROUNDS = 2;
/** What the flooding user's messages say, and nobody else's: the fake answers them slowly. */
const FLOOD_MARK = 'FLOODING-TURN';

const ratio = (a: number, b: number) => Math.round((a / b) * 100) / 100;

const fairness: Benchmark = {
  name: 'fairness',
  description: `a quiet user's ${QUIET_TURNS} turns, one after another, with and without another user's ${FLOOD} turns on a slow model`,
  needs: ['postgres', 'temporal'],
  async run({ infra, log }) {
    // A limit the flood passes (the default is above this flood), and one it never reaches.
    const limited = await measure(infra, log, { RUNNING_TURNS_PER_USER: String(FLOOD / 5) });
    const unlimited = await measure(infra, log, { RUNNING_TURNS_PER_USER: String(FLOOD * 10) });
    return { limited, unlimited };
  },
};

async function measure(infra: Infra, log: (line: string) => void, env: Record<string, string>): Promise<Record<string, unknown>> {
  {
    const stack = await startAgentStack(infra, log, {
      fake: { defaultScript: { text: 'Quiet answer.' } },
      // A pool for a hundred turns' steps and their writes at once.
      poolSize: 40,
      // The flood's waiting sends are connections held open: room for all of them (the limit on
      // connections is not what this measures).
      env: { OPEN_STREAMS_PER_USER: String(FLOOD * 2), ...env },
    });
    // A connection per quiet turn: between rounds the socket idles past the server's keep-alive, and a
    // reused one may be closed under the request.
    const agent = new http.Agent({ keepAlive: false, maxSockets: 1 });
    const floodAgent = new http.Agent({ keepAlive: true, maxSockets: FLOOD });
    try {
      stack.fake.setHandler((request) => {
        const said = JSON.stringify((request.body.messages as { content: unknown }[]).at(-1)?.content);
        return said.includes(FLOOD_MARK)
          ? { text: Array.from({ length: SLOW_CHUNKS }, (_, i) => `w${i} `), chunkDelayMs: SLOW_CHUNK_MS }
          : { text: 'Quiet answer.' };
      });
      const quietAgent = await stack.deployAgent();
      const quietSessions = await Promise.all(Array.from({ length: QUIET_TURNS }, () => stack.newSession(quietAgent)));
      const flooder = await stack.otherUser();
      const floodAgentName = await flooder.deployAgent();
      const quietTurns = async (label: string) => {
        const samples: number[] = [];
        for (const [index, sessionId] of quietSessions.entries())
          samples.push((await stack.send(agent, sessionId, `${label} ${index}`)).ms);
        return samples;
      };

      log(`RUNNING_TURNS_PER_USER ${stack.config.limits.runningTurnsPerUser}: warming up`);
      await quietTurns('warm-up');
      const calm: number[] = [];
      const flooded: number[] = [];
      let queuedAtPeak = 0;
      /** Each round's flood, first send to last turn's end: with the limit, how soon a freed place is taken again. */
      const floodMs: number[] = [];
      for (let round = 1; round <= ROUNDS; round++) {
        log(`round ${round}: the quiet user alone`);
        calm.push(...(await quietTurns(`calm ${round}`)));

        log(`round ${round}: ${FLOOD} flooding turns`);
        const floodSessions = await Promise.all(Array.from({ length: FLOOD }, () => flooder.newSession(floodAgentName)));
        const floodStarted = performance.now();
        const flood = Promise.all(floodSessions.map((sessionId, i) => flooder.send(floodAgent, sessionId, `${FLOOD_MARK} ${round}.${i}`)));
        // Awaited below; until then a failed flooding turn must not end the process unreported.
        flood.catch(() => undefined);
        // The flood is on once the model has as many of its requests as the worker lets run.
        const started = stack.fake.requests.length;
        const deadline = Date.now() + 60_000;
        while (stack.fake.requests.length - started < Math.min(FLOOD, stack.config.limits.runningTurnsPerUser) && Date.now() < deadline) {
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        queuedAtPeak = Math.max(queuedAtPeak, FLOOD - (stack.fake.requests.length - started));
        // The quiet user goes on sending, one turn after another, for as long as the flood lasts: what it
        // meets is the flood's steady state (its turns streaming, and with the limit, the rest waiting).
        let floodOver = false;
        void flood.finally(() => (floodOver = true)).catch(() => undefined);
        for (let batch = 0; batch === 0 || !floodOver; batch++) flooded.push(...(await quietTurns(`meanwhile ${round}.${batch}`)));
        await flood;
        floodMs.push(Math.round(performance.now() - floodStarted));
      }
      const calmLatency = summarize(calm);
      const floodedLatency = summarize(flooded);
      return {
        settings: {
          flood: FLOOD,
          calmQuietTurns: QUIET_TURNS * ROUNDS,
          slowTurnMs: SLOW_CHUNKS * SLOW_CHUNK_MS,
          runningTurnsPerUser: stack.config.limits.runningTurnsPerUser,
          workerMaxConcurrentActivities: stack.config.limits.workerConcurrentActivities,
        },
        quietTurnMs: { calm: calmLatency, flooded: floodedLatency },
        quietTurnsDuringFlood: flooded.length,
        floodMs,
        // The flood's turns one after another at the limit's pace, were every place taken again at once.
        floodFloorMs: Math.ceil(FLOOD / Math.min(FLOOD, stack.config.limits.runningTurnsPerUser)) * SLOW_CHUNKS * SLOW_CHUNK_MS,
        floodedOverCalm: { p50: ratio(floodedLatency.p50Ms, calmLatency.p50Ms), p90: ratio(floodedLatency.p90Ms, calmLatency.p90Ms) },
        floodTurnsWaitingWhenQuietTurnsRan: queuedAtPeak,
      };
    } finally {
      agent.destroy();
      floodAgent.destroy();
      await stack.close();
    }
  }
}

export default fairness;
