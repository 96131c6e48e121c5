// Turns per second under load: 100 sessions each send one message at the same moment (waiting
// sends, zero-delay fake model), through the whole service as in bench/turn-latency.bench.ts. A
// wave is timed from the first send to the last answer; each wave uses sessions of its own, so every
// send also starts its session workflow, as when many conversations begin at once. Beside each wave,
// a floor wave: 100 bare one-activity workflows at once on the same server, so the ratio holds on a
// machine whose speed (or load) differs from run to run. Each wave's CPU time, per turn and per floor
// workflow, split into this process (client, API, worker, floor worker), the Temporal server and
// PostgreSQL: what a turn costs the machine beside the least a workflow costs it.
import http from 'node:http';
import type { Benchmark } from './benchmark.ts';
import { startAgentStack, type AgentStack } from './agent-stack.ts';
import { startFloor, type Floor } from './floor.ts';
import { summarize } from './measure.ts';
import { cpuSnapshot, cpuSpent, type CpuSnapshot } from './cpu-meter.ts';

const SESSIONS = 100;
const WAVES = 3;
const WARMUP_SESSIONS = 20;
const REPLY = 'Hello from the fake model.';

interface Wave {
  wallMs: number;
  turnsPerSecond: number;
  turnMs: number[];
  /** CPU time of this process (API, worker, workflows, client) over the wave's wall time: 1 is one core busy throughout. */
  processCores: number;
  /** CPU milliseconds per turn: this process (`bench`), the Temporal server, PostgreSQL, the whole machine. */
  cpuMsPer: CpuSnapshot;
}

type Pids = Record<string, number | undefined>;

async function wave(stack: AgentStack, agentName: string, sessions: number, pids: Pids): Promise<Wave> {
  // Opening sessions is not part of the wave.
  const ids: string[] = [];
  for (let i = 0; i < sessions; i++) ids.push(await stack.newSession(agentName));
  // One socket per session: the sends really are concurrent, none queues behind another's socket.
  const agent = new http.Agent({ keepAlive: true, maxSockets: sessions });
  try {
    const cpu = process.cpuUsage();
    const before = cpuSnapshot(pids);
    const started = process.hrtime.bigint();
    const answers = await Promise.all(ids.map((id, index) => stack.send(agent, id, `wave message ${index}`)));
    const wallMs = Number(process.hrtime.bigint() - started) / 1e6;
    const cpuMsPer = cpuSpent(before, cpuSnapshot(pids), sessions);
    const { user, system } = process.cpuUsage(cpu);
    const wrong = answers.find((answer) => answer.body.reply !== REPLY);
    if (wrong) throw new Error(`unexpected reply ${JSON.stringify(wrong.body.reply)}`);
    return {
      wallMs,
      turnsPerSecond: sessions / (wallMs / 1000),
      turnMs: answers.map((answer) => answer.ms),
      processCores: (user + system) / 1000 / wallMs,
      cpuMsPer,
    };
  } finally {
    agent.destroy();
  }
}

interface FloorWave {
  wallMs: number;
  workflowsPerSecond: number;
  /** CPU milliseconds per floor workflow, split as a wave's. */
  cpuMsPer: CpuSnapshot;
}

/** The floor: as many bare workflows, one no-op activity each, started together. */
async function floorWave(floor: Floor, count: number, pids: Pids): Promise<FloorWave> {
  const before = cpuSnapshot(pids);
  const started = process.hrtime.bigint();
  await Promise.all(Array.from({ length: count }, () => floor.run()));
  const wallMs = Number(process.hrtime.bigint() - started) / 1e6;
  return { wallMs, workflowsPerSecond: count / (wallMs / 1000), cpuMsPer: cpuSpent(before, cpuSnapshot(pids), count) };
}

/** The median of each part's CPU milliseconds over the waves, rounded; undefined parts are left out. */
function medianCpu(waves: ReadonlyArray<{ cpuMsPer: CpuSnapshot }>): Record<string, number> {
  const medians: Record<string, number> = {};
  for (const name of Object.keys(waves[0]?.cpuMsPer ?? {})) {
    const values = waves.map((each) => each.cpuMsPer[name]).filter((value): value is number => value !== undefined);
    if (values.length === waves.length) medians[name] = round(median(values));
  }
  return medians;
}

const round = (value: number) => Math.round(value * 100) / 100;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

const turnThroughput: Benchmark = {
  name: 'turn-throughput',
  description: `${SESSIONS} sessions sending one message each at once (zero-delay fake model), ${WAVES} waves`,
  needs: ['postgres', 'temporal'],
  async run({ infra, log }) {
    const stack = await startAgentStack(infra, log, { fake: { defaultScript: { text: REPLY } } });
    let floor: Floor | undefined;
    try {
      floor = await startFloor(stack.temporal);
      const agentName = await stack.deployAgent();
      const pids = infra.pids();
      log(`warm-up waves of ${WARMUP_SESSIONS}`);
      await wave(stack, agentName, WARMUP_SESSIONS, pids);
      await floorWave(floor, WARMUP_SESSIONS, pids);
      const waves: Wave[] = [];
      const floors: FloorWave[] = [];
      for (let index = 0; index < WAVES; index++) {
        const result = await wave(stack, agentName, SESSIONS, pids);
        const floorResult = await floorWave(floor, SESSIONS, pids);
        log(
          `wave ${index + 1}: ${SESSIONS} turns in ${result.wallMs.toFixed(0)} ms (${result.turnsPerSecond.toFixed(1)} turns/s, ` +
            `${result.processCores.toFixed(2)} cores in this process); floor ${floorResult.workflowsPerSecond.toFixed(1)} workflows/s`,
        );
        waves.push(result);
        floors.push(floorResult);
      }
      const turnsPerSecond = median(waves.map((result) => result.turnsPerSecond));
      const floorPerSecond = median(floors.map((result) => result.workflowsPerSecond));
      const turnCpu = medianCpu(waves);
      const floorCpu = medianCpu(floors);
      return {
        sessions: SESSIONS,
        waves: WAVES,
        method:
          `each wave: ${SESSIONS} fresh sessions, one waiting send each (POST /session/<id>), all started together, one socket each; ` +
          'timed from the first send to the last answer; API, worker and floor worker share this process, PostgreSQL pools of 10 each; ' +
          'figures are medians over the waves; cpuMsPer*: CPU ms per turn or floor workflow in the wave, from /proc: bench is this ' +
          'process, temporal the dev server, postgres its postmaster and backends, machine every core (the fake model included)',
        turnsPerSecond: round(turnsPerSecond),
        wallMs: round(median(waves.map((result) => result.wallMs))),
        perWave: waves.map((result) => ({
          wallMs: round(result.wallMs),
          turnsPerSecond: round(result.turnsPerSecond),
          processCores: round(result.processCores),
        })),
        turnLatency: summarize(waves.flatMap((result) => result.turnMs)),
        cpuMsPerTurn: turnCpu,
        floor: {
          workflow: `${SESSIONS} floorWorkflow runs (one no-op activity) started together`,
          workflowsPerSecond: round(floorPerSecond),
          wallMs: round(median(floors.map((result) => result.wallMs))),
          perWave: floors.map((result) => ({ wallMs: round(result.wallMs), workflowsPerSecond: round(result.workflowsPerSecond) })),
          cpuMsPerWorkflow: floorCpu,
        },
        // How many bare workflows fit in the time of one turn: what a turn costs the engine and the service.
        ratio: round(floorPerSecond / turnsPerSecond),
        // The same in CPU: a turn's machine-wide CPU time over a bare workflow's.
        ...(turnCpu.machine !== undefined && floorCpu.machine ? { cpuRatio: round(turnCpu.machine / floorCpu.machine) } : {}),
      };
    } finally {
      await floor?.stop().catch((error: unknown) => log(`stopping the floor worker failed: ${(error as Error).message}`));
      await stack.close();
    }
  },
};

export default turnThroughput;
