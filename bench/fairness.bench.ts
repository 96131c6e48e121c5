// One user floods, another one asks: how long the quiet user's turns take while a flooding user has
// FLOOD turns running on a slow model, beside the same turns with nobody flooding. The ratio is what
// the flood costs everyone else; RUNNING_TURNS_PER_USER (its default here) is what bounds it: past it
// the flooder's turns wait (`turn.queued`) instead of taking more of the worker's activity slots.
import http from 'node:http';
import type { Benchmark } from './benchmark.ts';
import { startAgentStack } from './agent-stack.ts';
import { summarize } from './measure.ts';

const FLOOD = 100;
const QUIET_TURNS = 5;
/** The flood's model: this many chunks, this far apart (about 4 s a turn). */
const SLOW_CHUNKS = 40;
const SLOW_CHUNK_MS = 100;
const ROUNDS = 2;

const ratio = (a: number, b: number) => Math.round((a / b) * 100) / 100;

const fairness: Benchmark = {
  name: 'fairness',
  description: `a quiet user's ${QUIET_TURNS} turns, one after another, with and without another user's ${FLOOD} turns on a slow model`,
  needs: ['postgres', 'temporal'],
  async run({ infra, log }) {
    const stack = await startAgentStack(infra, log, {
      fake: { defaultScript: { text: 'Quiet answer.' } },
      // A pool for a hundred turns' steps and their writes at once.
      poolSize: 40,
    });
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const floodAgent = new http.Agent({ keepAlive: true, maxSockets: FLOOD });
    try {
      stack.fake.setHandler((request) => {
        const said = JSON.stringify((request.body.messages as { content: unknown }[]).at(-1)?.content);
        return said.includes('flood')
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

      log('warming up');
      await quietTurns('warm-up');
      const calm: number[] = [];
      const flooded: number[] = [];
      let queuedAtPeak = 0;
      for (let round = 1; round <= ROUNDS; round++) {
        log(`round ${round}: the quiet user alone`);
        calm.push(...(await quietTurns(`calm ${round}`)));

        log(`round ${round}: ${FLOOD} flooding turns`);
        const floodSessions = await Promise.all(Array.from({ length: FLOOD }, () => flooder.newSession(floodAgentName)));
        const flood = Promise.all(floodSessions.map((sessionId, i) => flooder.send(floodAgent, sessionId, `flood ${round}.${i}`)));
        // The flood is on once the model has as many of its requests as the worker lets run.
        const started = stack.fake.requests.length;
        const deadline = Date.now() + 60_000;
        while (stack.fake.requests.length - started < Math.min(FLOOD, stack.config.limits.runningTurnsPerUser) && Date.now() < deadline) {
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        queuedAtPeak = Math.max(queuedAtPeak, FLOOD - (stack.fake.requests.length - started));
        flooded.push(...(await quietTurns(`flooded ${round}`)));
        await flood;
      }
      const calmLatency = summarize(calm);
      const floodedLatency = summarize(flooded);
      return {
        settings: {
          flood: FLOOD,
          quietTurns: QUIET_TURNS * ROUNDS,
          slowTurnMs: SLOW_CHUNKS * SLOW_CHUNK_MS,
          runningTurnsPerUser: stack.config.limits.runningTurnsPerUser,
          workerMaxConcurrentActivities: stack.config.limits.workerConcurrentActivities,
        },
        quietTurnMs: { calm: calmLatency, flooded: floodedLatency },
        floodedOverCalm: { p50: ratio(floodedLatency.p50Ms, calmLatency.p50Ms), p90: ratio(floodedLatency.p90Ms, calmLatency.p90Ms) },
        floodTurnsWaitingWhenQuietTurnsRan: queuedAtPeak,
      };
    } finally {
      agent.destroy();
      floodAgent.destroy();
      await stack.close();
    }
  },
};

export default fairness;
