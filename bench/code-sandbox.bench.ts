// The `code` tool server's sandbox (activities/tools/code-sandbox/): how long a thread takes to start
// (spawned until its QuickJS engine is loaded and warmed and it says so), and how long a small script
// then takes on it once idle, as on a spare (posted until its answer is back, in a fresh runtime with
// its prelude). A call that finds the spare
// thread ready costs the run; one that does not, the start as well. Threads are timed as a build runs
// them (the thread's code compiled to JavaScript, here by esbuild into .data/) and, fewer of them, from
// source through tsx, as `npm start` and the tests run them.
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { build } from 'esbuild';
import { CODE_TOOL_LIMITS } from '../contract/tool-servers.ts';
import { THREAD_READY, type ScriptJob, type ScriptOutcome } from '../activities/tools/code-sandbox/protocol.ts';
import { startThread } from '../activities/tools/start-thread.ts';
import type { Benchmark } from './benchmark.ts';
import { summarize } from './measure.ts';

const RUNS = 50;
const SOURCE_RUNS = 10;
/** How long a thread idles between ready and its script, as a spare does. */
const SETTLE_MS = 100;
const ROOT = path.resolve(import.meta.dirname, '..');
const LIMITS = { timeMs: CODE_TOOL_LIMITS.timeMs, memoryBytes: CODE_TOOL_LIMITS.memoryBytes, outputBytes: CODE_TOOL_LIMITS.outputBytes };
const AMOUNTS = Array.from({ length: 200 }, (_, i) => (i * 7) % 101);
/** A script of the kind a model writes: parse a file, compute, print a line, return an object. */
const JOB: ScriptJob = {
  code: [
    "const rows = workspace.read('orders.csv').trim().split('\\n').slice(1).map((line) => line.split(','));",
    'const total = rows.reduce((sum, [, amount]) => sum + Number(amount), 0);',
    "console.log(rows.length + ' orders');",
    '({ total, mean: total / rows.length, largest: Math.max(...rows.map(([, amount]) => Number(amount))) })',
  ].join('\n'),
  files: { 'orders.csv': `id,amount\n${AMOUNTS.map((amount, id) => `${id},${amount}`).join('\n')}\n` },
};

const since = (started: bigint) => Number(process.hrtime.bigint() - started) / 1e6;

/** The thread's code as one JavaScript file inside the repository, so it finds quickjs-emscripten where a build does. */
async function compiledThread(): Promise<string> {
  const out = path.join(ROOT, '.data', 'bench', 'code-sandbox-thread.mjs');
  fs.mkdirSync(path.dirname(out), { recursive: true });
  await build({
    entryPoints: [path.join(ROOT, 'activities/tools/code-sandbox/thread.ts')],
    outfile: out,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    logLevel: 'warning',
  });
  return out;
}

/** One thread: spawned until ready, then the script posted until its answer. */
async function once(spawn: () => Worker): Promise<{ startMs: number; runMs: number }> {
  const started = process.hrtime.bigint();
  const worker = spawn();
  try {
    const answers: unknown[] = [];
    let wake: () => void = () => undefined;
    worker.on('message', (message) => {
      answers.push(message);
      wake();
    });
    const next = async () => {
      while (answers.length === 0) await new Promise<void>((resolve) => (wake = resolve));
      return answers.shift();
    };
    const failed = new Promise<never>((_, reject) => worker.once('error', reject));
    if ((await Promise.race([next(), failed])) !== THREAD_READY) throw new Error('the thread did not start');
    const startMs = since(started);
    // A spare thread has been idle a while when a call takes it; one just started is still settling.
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    const posted = process.hrtime.bigint();
    worker.postMessage(JOB);
    const outcome = (await Promise.race([next(), failed])) as ScriptOutcome;
    const runMs = since(posted);
    const total = AMOUNTS.reduce((sum, amount) => sum + amount, 0);
    if (!outcome.ok || (JSON.parse(outcome.result ?? 'null') as { total?: number } | null)?.total !== total) {
      throw new Error(`unexpected outcome ${JSON.stringify(outcome)}`);
    }
    return { startMs, runMs };
  } finally {
    await worker.terminate();
  }
}

async function sample(runs: number, spawn: () => Worker) {
  const starts: number[] = [];
  const runsMs: number[] = [];
  const calls: number[] = [];
  for (let i = 0; i < runs; i++) {
    const { startMs, runMs } = await once(spawn);
    starts.push(startMs);
    runsMs.push(runMs);
    calls.push(startMs + runMs);
  }
  return { threadStart: summarize(starts), scriptRun: summarize(runsMs), withoutSpare: summarize(calls) };
}

const codeSandbox: Benchmark = {
  name: 'code-sandbox',
  description: `the code sandbox's thread start and a small script's run (${RUNS} threads compiled, ${SOURCE_RUNS} from source)`,
  needs: [],
  async run({ log }) {
    const file = pathToFileURL(await compiledThread());
    const options = { workerData: LIMITS, resourceLimits: { maxOldGenerationSizeMb: 64, maxYoungGenerationSizeMb: 16 } };
    log('warming up');
    await once(() => new Worker(file, options));
    log(`${RUNS} compiled threads`);
    const compiled = await sample(RUNS, () => new Worker(file, options));
    log(`${SOURCE_RUNS} threads from source`);
    const fromSource = await sample(SOURCE_RUNS, () => startThread(import.meta.url, '../activities/tools/code-sandbox/thread', options));
    return {
      method:
        'one script per thread, as the tool runs them, one thread at a time; threadStart: Worker created until its engine is loaded ' +
        `and warmed; scriptRun: after ${SETTLE_MS} ms idle, job posted until its answer (a fresh runtime, the prelude, a 200-line CSV ` +
        'summed, one console.log); ' +
        'withoutSpare: both, what a call pays when no spare thread is ready',
      compiled,
      fromSource,
    };
  },
};

export default codeSandbox;
