// How long a worker process takes to start polling, from the build (`npm run build`: compiled JavaScript
// and the prebuilt workflow bundle, as `npm run worker` runs it in production) beside from source (tsx,
// webpack bundling workflows/index.ts at start). Rounds alternate the two, so a slow spell of the machine
// hits both alike. Three figures each: spawn to "worker polling" (what a rollout waits for); the worker's
// own startMs, connected to Temporal to polling (bundling, or loading the bundle, is there); and the CPU
// time the process had used by then, which a busy machine inflates far less than the wall-clock times.
import { execFile, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { WORKER_NODE_FLAGS } from '../workers/node-flags.ts';
import type { Benchmark } from './benchmark.ts';
import type { Infra } from './infra.ts';
import { summarize } from './measure.ts';

const ROUNDS = 5;
const ROOT = path.resolve(import.meta.dirname, '..');
const FROM = {
  build: ['--enable-source-maps', 'dist/workers/main.js'],
  source: ['--import', 'tsx', 'workers/main.ts'],
};

interface Start {
  spawnToPollingMs: number;
  startMs: number;
  cpuMs: number;
}

/** User and system CPU time of a process so far, from /proc (clock ticks of 10 ms). */
function cpuMsOf(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** Starts one worker, waits for its "worker polling" line, stops it with SIGTERM and waits for its exit. */
async function startOnce(infra: Infra, args: string[]): Promise<Start> {
  const began = performance.now();
  const child = spawn(process.execPath, [...WORKER_NODE_FLAGS, ...args], {
    cwd: ROOT,
    env: {
      ...process.env,
      NODE_ENV: 'production',
      NODE_OPTIONS: '',
      LOG_LEVEL: 'info',
      DATABASE_URL: infra.databaseUrl(),
      TEMPORAL_ADDRESS: infra.temporalAddress(),
      SERVICE_MASTER_KEY: 'bench-master-key-0123456789abcdefghijklmnopqrstuv',
      TASK_QUEUE: `worker-start-${randomUUID()}`,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let output = '';
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  try {
    const polling = await new Promise<{ startMs: number; cpuMs: number }>((resolve, reject) => {
      let pending = '';
      child.stdout.on('data', (chunk: Buffer) => {
        pending += chunk.toString('utf8');
        output += chunk.toString('utf8');
        const line = pending.split('\n').find((text) => text.includes('"worker polling"'));
        if (line) resolve({ ...(JSON.parse(line) as { startMs: number }), cpuMs: cpuMsOf(child.pid!) });
      });
      void exited.then((code) => reject(new Error(`the worker exited (${code}) before polling:\n${output}`)));
    });
    const spawnToPollingMs = performance.now() - began;
    return { spawnToPollingMs, startMs: polling.startMs, cpuMs: polling.cpuMs };
  } finally {
    if (child.exitCode === null) child.kill('SIGTERM');
    await exited;
  }
}

const workerStart: Benchmark = {
  name: 'worker-start',
  description: `a worker process from the build vs from source: spawn to polling, connected to polling, CPU used by then; ${ROUNDS} rounds alternating`,
  needs: ['postgres', 'temporal'],
  async run({ infra, log }) {
    log('worker-start: npm run build');
    await promisify(execFile)('npm', ['run', '--silent', 'build'], { cwd: ROOT });
    // One start of each first, not counted: migrations and the first import of each file off the disk.
    for (const args of Object.values(FROM)) await startOnce(infra, args);
    const samples = { build: [] as Start[], source: [] as Start[] };
    for (let round = 1; round <= ROUNDS; round++) {
      for (const [from, args] of Object.entries(FROM) as Array<[keyof typeof FROM, string[]]>) {
        samples[from].push(await startOnce(infra, args));
      }
      log(`worker-start: round ${round}/${ROUNDS}`);
    }
    const figures = (starts: Start[]) => ({
      spawnToPolling: summarize(starts.map((start) => start.spawnToPollingMs)),
      connectedToPolling: summarize(starts.map((start) => start.startMs)),
      cpuToPolling: summarize(starts.map((start) => start.cpuMs)),
    });
    const build = figures(samples.build);
    const source = figures(samples.source);
    return {
      rounds: ROUNDS,
      build,
      source,
      // Below 1: the build starts faster.
      spawnToPollingRatioP50: Math.round((build.spawnToPolling.p50Ms / source.spawnToPolling.p50Ms) * 100) / 100,
      connectedToPollingRatioP50: Math.round((build.connectedToPolling.p50Ms / source.connectedToPolling.p50Ms) * 100) / 100,
      cpuToPollingRatioP50: Math.round((build.cpuToPolling.p50Ms / source.cpuToPolling.p50Ms) * 100) / 100,
    };
  },
};

export default workerStart;
