// `npm test`: the static checks and the two fast test tiers at once, then the service tier (vitest.config.ts)
// only if all of them passed, so a type error or a broken pure rule is reported before the service tier's
// minutes. Steps run at once print their output when each ends. What running the first stage at once gains is
// measured in docs/development.md ("Commands and tests"). The checks keep caches under .data/cache (tsc's build
// info, ESLint's and Prettier's caches): a clean clone runs them in full. Each tier writes its JSON report;
// they are merged into .data/test-results.json, which .ci/run reads. The last lines say how long each step took.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '..');
const CACHE = path.join(ROOT, '.data', 'cache');
const REPORTS = path.join(ROOT, '.data', 'test-results');
const MERGED = path.join(ROOT, '.data', 'test-results.json');
const bin = (name: string) => path.join(ROOT, 'node_modules', '.bin', name);

interface Step {
  name: string;
  command: string;
  args: string[];
  /** A test tier: its vitest JSON report goes here. */
  report?: string;
}

/** Steps run at once; the next stage starts only if every one of them passed. */
type Stage = Step[];

const tier = (name: string, projects: string[]): Step => ({
  name: `tests: ${name}`,
  command: bin('vitest'),
  args: ['run', ...projects.flatMap((project) => ['--project', project])],
  report: path.join(REPORTS, `${name}.json`),
});

const STATIC_CHECKS: Step[] = [
  {
    name: 'typecheck',
    command: bin('tsc'),
    args: ['--noEmit', '-p', 'tsconfig.json', '--incremental', '--tsBuildInfoFile', path.join(CACHE, 'tsc.tsbuildinfo')],
  },
  {
    name: 'typecheck: dashboard',
    command: bin('tsc'),
    args: [
      '--noEmit',
      '-p',
      'dashboard/tsconfig.json',
      '--incremental',
      '--tsBuildInfoFile',
      path.join(CACHE, 'tsc-dashboard.tsbuildinfo'),
    ],
  },
  // The cache re-lints changed files only: a type change that breaks an unchanged file's type-aware rule is
  // seen by a run without it (CI's clean clone, or `npm run lint`).
  {
    name: 'lint',
    command: bin('eslint'),
    args: ['.', '--max-warnings', '0', '--cache', '--cache-location', `${path.join(CACHE, 'eslint')}/`],
  },
  {
    name: 'format',
    command: bin('prettier'),
    args: ['--check', '.', '--log-level', 'warn', '--cache', '--cache-location', path.join(CACHE, 'prettier')],
  },
];

const STAGES: Stage[] = [
  [...STATIC_CHECKS, tier('unit', ['unit']), tier('workflows', ['workflows'])],
  [tier('service', ['dev-server', 'temporal-on-postgres'])],
];

/**
 * Runs a step; `buffered`: its output is held and printed in one piece when it ends, so that steps
 * running at once do not interleave their lines.
 */
function run(step: Step, buffered: boolean): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(step.command, step.args, {
      cwd: ROOT,
      stdio: buffered ? ['ignore', 'pipe', 'pipe'] : 'inherit',
      env: { ...process.env, ...(step.report ? { VITEST_JSON_REPORT: step.report } : {}) },
    });
    const output: Buffer[] = [];
    child.stdout?.on('data', (chunk: Buffer) => output.push(chunk));
    child.stderr?.on('data', (chunk: Buffer) => output.push(chunk));
    child.once('error', (error) => {
      process.stderr.write(`[test] ${step.name} could not start: ${error.message}\n`);
      resolve(1);
    });
    // 'close', not 'exit': the pipes are read to their end first.
    child.once('close', (code, signal) => {
      if (output.length > 0) process.stderr.write(Buffer.concat(output));
      resolve(code ?? (signal ? 1 : 0));
    });
  });
}

interface Report {
  numPassedTests: number;
  numFailedTests: number;
  numPendingTests: number;
  numTotalTests: number;
  numTotalTestSuites?: number;
  success: boolean;
  testResults: unknown[];
  [key: string]: unknown;
}

/** The tiers' reports as one, in vitest's shape: what .ci/run counts. */
function mergeReports(files: string[]): void {
  const reports = files.filter((file) => fs.existsSync(file)).map((file) => JSON.parse(fs.readFileSync(file, 'utf8')) as Report);
  if (reports.length === 0) return;
  const sum = (key: 'numPassedTests' | 'numFailedTests' | 'numPendingTests' | 'numTotalTests') =>
    reports.reduce((total, report) => total + report[key], 0);
  const merged: Report = {
    ...reports[0]!,
    numPassedTests: sum('numPassedTests'),
    numFailedTests: sum('numFailedTests'),
    numPendingTests: sum('numPendingTests'),
    numTotalTests: sum('numTotalTests'),
    success: reports.every((report) => report.success),
    testResults: reports.flatMap((report) => report.testResults),
  };
  fs.writeFileSync(MERGED, JSON.stringify(merged));
}

async function main(): Promise<number> {
  fs.mkdirSync(CACHE, { recursive: true });
  fs.rmSync(REPORTS, { recursive: true, force: true });
  fs.mkdirSync(REPORTS, { recursive: true });
  fs.rmSync(MERGED, { force: true });
  const timings: string[] = [];
  let status = 0;
  for (const stage of STAGES) {
    const buffered = stage.length > 1;
    const statuses = await Promise.all(
      stage.map(async (step) => {
        process.stderr.write(`[test] ${step.name}\n`);
        const started = performance.now();
        const code = await run(step, buffered);
        const seconds = ((performance.now() - started) / 1000).toFixed(1);
        if (buffered) process.stderr.write(`[test] ${step.name}: ${code === 0 ? 'passed' : 'failed'} in ${seconds} s\n`);
        timings.push(`${step.name}: ${seconds} s${code === 0 ? '' : ' (failed)'}`);
        return code;
      }),
    );
    status = statuses.find((code) => code !== 0) ?? 0;
    if (status !== 0) break;
  }
  mergeReports(STAGES.flat().flatMap((step) => (step.report ? [step.report] : [])));
  process.stderr.write(`[test] ${timings.join('; ')}\n`);
  return status;
}

process.exitCode = await main();
