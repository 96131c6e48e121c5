// The payload codec's cost (lib/payload-codec.ts): the same turns through two stacks, one writing
// encrypted payloads to Temporal (the default) and one with TEMPORAL_PAYLOAD_ENCRYPTION=off, in
// alternating blocks so a slow spell of the machine hits both alike. Latency of sequential waiting
// sends, then throughput of concurrent ones; the codec's cost is each "on" figure over its "off".
import http from 'node:http';
import type { Benchmark } from './benchmark.ts';
import { startAgentStack, type AgentStack } from './agent-stack.ts';
import { summarize } from './measure.ts';

const TURNS = 60;
const WARMUP = 10;
const BLOCK = 10;
const CONCURRENT = 20;
const ROUNDS = 3;
const REPLY = 'Hello from the fake model.';

const ratio = (a: number, b: number) => Math.round((a / b) * 100) / 100;

async function sendOnce(stack: AgentStack, agent: http.Agent, sessionId: string, text: string): Promise<number> {
  const { ms, body } = await stack.send(agent, sessionId, text);
  if (body.reply !== REPLY) throw new Error(`unexpected reply ${JSON.stringify(body.reply)}`);
  return ms;
}

const payloadCodec: Benchmark = {
  name: 'payload-codec',
  description: `turn latency (${TURNS} sequential) and throughput (${ROUNDS}×${CONCURRENT} concurrent) with encrypted workflow payloads beside plaintext`,
  needs: ['postgres', 'temporal'],
  async run({ infra, log }) {
    const fake = { defaultScript: { text: REPLY } };
    const on = await startAgentStack(infra, log, { fake, env: { TEMPORAL_PAYLOAD_ENCRYPTION: 'on' } });
    const off = await startAgentStack(infra, log, { fake, env: { TEMPORAL_PAYLOAD_ENCRYPTION: 'off' } }).catch(async (error: unknown) => {
      await on.close();
      throw error;
    });
    const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENT });
    try {
      const stacks = [
        { name: 'on', stack: on, agentName: await on.deployAgent() },
        { name: 'off', stack: off, agentName: await off.deployAgent() },
      ];
      const sessions = await Promise.all(stacks.map(({ stack, agentName }) => stack.newSession(agentName)));
      let sent = 0;

      const sequential = async (count: number) => {
        const samples = stacks.map((): number[] => []);
        for (let done = 0; done < count; done += BLOCK) {
          for (const [index, { stack }] of stacks.entries()) {
            for (let i = 0; i < Math.min(BLOCK, count - done); i++) {
              samples[index]!.push(await sendOnce(stack, agent, sessions[index]!, `message ${++sent}`));
            }
          }
        }
        return samples;
      };
      log(`warming up (${WARMUP} turns each)`);
      await sequential(WARMUP);
      log(`latency: ${TURNS} sequential turns each`);
      const [onLatency, offLatency] = (await sequential(TURNS)).map(summarize);

      // Throughput: CONCURRENT sessions sending at once, ROUNDS times, alternating the stacks.
      const concurrentSessions = await Promise.all(
        stacks.map(({ stack, agentName }) => Promise.all(Array.from({ length: CONCURRENT }, () => stack.newSession(agentName)))),
      );
      const elapsed = stacks.map(() => 0);
      for (let round = 0; round < ROUNDS; round++) {
        for (const [index, { stack }] of stacks.entries()) {
          const at = process.hrtime.bigint();
          await Promise.all(concurrentSessions[index]!.map((sessionId) => sendOnce(stack, agent, sessionId, `burst ${++sent}`)));
          elapsed[index]! += Number(process.hrtime.bigint() - at) / 1e6;
        }
      }
      const turnsPerSecond = elapsed.map((ms) => Math.round(((ROUNDS * CONCURRENT) / (ms / 1000)) * 10) / 10);

      return {
        method:
          'two stacks (API and worker in this process) on one PostgreSQL and Temporal, encryption on and off, zero-delay fake model; ' +
          `latency: waiting sends in alternating blocks of ${BLOCK}; throughput: ${CONCURRENT} sessions sending at once, ${ROUNDS} rounds each`,
        latency: {
          on: onLatency,
          off: offLatency,
          ratioP50: ratio(onLatency!.p50Ms, offLatency!.p50Ms),
          ratioP99: ratio(onLatency!.p99Ms, offLatency!.p99Ms),
        },
        throughput: {
          onTurnsPerSecond: turnsPerSecond[0],
          offTurnsPerSecond: turnsPerSecond[1],
          ratio: ratio(turnsPerSecond[1]!, turnsPerSecond[0]!),
        },
        note: "ratios are the codec's cost: latency on/off, throughput off/on (above 1: slower with the codec)",
      };
    } finally {
      agent.destroy();
      await on.close();
      await off.close();
    }
  },
};

export default payloadCodec;
