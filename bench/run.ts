// `npm run bench [name ...]`: runs every benchmark in bench/ (`*.bench.ts`), or those whose name
// contains one of the arguments, against real infrastructure, and prints ONE JSON document on stdout.
// Progress goes to stderr. A benchmark that fails is reported in the document and makes the exit
// code 1; the others still run.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Benchmark } from './benchmark.ts';
import { startInfra, type Infra, type TemporalEngine } from './infra.ts';

const say = (line: string) => process.stderr.write(`[bench] ${line}\n`);

// Until the document is written, anything printed to stdout (by a dependency, say) goes to stderr,
// so that stdout is exactly one JSON document.
const writeDocument = process.stdout.write.bind(process.stdout);
process.stdout.write = process.stderr.write.bind(process.stderr) as typeof process.stdout.write;

async function discover(): Promise<Benchmark[]> {
  const dir = path.dirname(fileURLToPath(import.meta.url));
  const benchmarks: Benchmark[] = [];
  for (const file of fs
    .readdirSync(dir)
    .filter((name) => name.endsWith('.bench.ts'))
    .sort()) {
    const module = (await import(pathToFileURL(path.join(dir, file)).href)) as { default?: Benchmark };
    if (typeof module.default?.run !== 'function') throw new Error(`bench/${file} must export a Benchmark as its default export`);
    benchmarks.push(module.default);
  }
  return benchmarks;
}

function select(all: Benchmark[], filters: string[]): Benchmark[] {
  if (!filters.length) return all;
  const chosen = all.filter((benchmark) => filters.some((filter) => benchmark.name.includes(filter)));
  if (!chosen.length) throw new Error(`No benchmark matches ${filters.join(', ')}. There are: ${all.map((b) => b.name).join(', ')}`);
  return chosen;
}

function machine() {
  const cpus = os.cpus();
  return {
    cpus: cpus.length,
    cpuModel: cpus[0]?.model.trim(),
    memoryGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    loadAverage1m: Math.round(os.loadavg()[0]! * 100) / 100,
    node: process.version,
    platform: `${os.platform()}-${os.arch()}`,
  };
}

/** A signal mid-run still stops the PostgreSQL and Temporal servers started for it. */
function stopOnSignal(infra: Infra): void {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      say(`${signal}: stopping`);
      void infra.stop().finally(() => process.exit(130));
    });
  }
}

/** `--temporal=postgres`: the benchmarks run on a Temporal server backed by PostgreSQL (bench/infra.ts). */
function options(args: string[]): { filters: string[]; engine: TemporalEngine } {
  const engineFlag = args.find((arg) => arg.startsWith('--temporal='));
  const engine = engineFlag?.slice('--temporal='.length) ?? 'dev-server';
  if (engine !== 'dev-server' && engine !== 'postgres') throw new Error(`--temporal takes dev-server or postgres, not ${engine}`);
  return { filters: args.filter((arg) => !arg.startsWith('--')), engine };
}

async function main(): Promise<number> {
  const { filters, engine } = options(process.argv.slice(2));
  const benchmarks = select(await discover(), filters);
  const startedAt = new Date();
  const infra = await startInfra(new Set(benchmarks.flatMap((benchmark) => benchmark.needs)), say, engine);
  stopOnSignal(infra);
  const results: Record<string, unknown> = {};
  let failures = 0;
  try {
    for (const benchmark of benchmarks) {
      const log = (line: string) => say(`${benchmark.name}: ${line}`);
      log(benchmark.description);
      const started = Date.now();
      try {
        results[benchmark.name] = await benchmark.run({ infra, log });
      } catch (error) {
        failures++;
        results[benchmark.name] = { error: (error as Error).message };
        log(`FAILED: ${(error as Error).stack ?? String(error)}`);
      }
      log(`${((Date.now() - started) / 1000).toFixed(1)} s`);
    }
  } finally {
    await infra.stop();
  }
  const document = {
    benchmarks: results,
    machine: machine(),
    infra: infra.origin,
    startedAt: startedAt.toISOString(),
    durationMs: Date.now() - startedAt.getTime(),
  };
  // Exit only once the document is flushed: stdout may be a pipe.
  await new Promise<void>((resolve) => writeDocument(`${JSON.stringify(document, null, 2)}\n`, () => resolve()));
  return failures ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    say(`could not run: ${(error as Error).stack ?? String(error)}`);
    process.exit(1);
  },
);
