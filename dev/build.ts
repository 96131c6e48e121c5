// `npm run build`: the API and the worker as JavaScript in dist/, which `npm run api` and `npm run worker`
// run with plain node when NODE_ENV=production. dist/ mirrors the source tree (dist/api/server.js,
// dist/workers/main.js, ...), so the files the code reads relative to itself are copied to the same
// places: the migrations, the dashboard's built page, and a package.json for the version and module type.
// The workflows are bundled here once (dist/workers/workflow-bundle.js, and one for each plugin a worker
// may run with: workflow-bundle.OpenTelemetryPlugin.js for tracing), so a worker from the build does not
// run webpack when it starts. Types are not checked (tsconfig.build.json): `npm run typecheck` does that.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { promisify } from 'node:util';
import { bundleWorkflowCode } from '@temporalio/worker';
import { workflowBundleFile, workflowBundleOptions } from '../workers/workflow-code.ts';
import { pluginSetsToBundle } from '../workers/observability.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const OUT = path.join(ROOT, 'dist');
const require = createRequire(import.meta.url);
const say = (line: string) => process.stderr.write(`[build] ${line}\n`);

/** Compiles the server with tsc into `out` (a sibling of dist/, so the source maps' relative paths hold after the swap). */
async function compile(out: string): Promise<void> {
  const tsc = require.resolve('typescript/bin/tsc');
  try {
    await promisify(execFile)(process.execPath, [tsc, '-p', path.join(ROOT, 'tsconfig.build.json'), '--outDir', out], { cwd: ROOT });
  } catch (error) {
    const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
    throw new Error(`tsc failed:\n${stdout}${stderr}`);
  }
}

async function bundleWorkflows(out: string): Promise<void> {
  const quiet = () => undefined;
  fs.mkdirSync(path.join(out, 'workers'), { recursive: true });
  // One after the other: webpack is CPU-bound, and tsc compiles meanwhile.
  for (const plugins of pluginSetsToBundle()) {
    // The bundle carries its own inline source map: workflow stack traces point at workflows/*.ts.
    const { code } = await bundleWorkflowCode({
      ...workflowBundleOptions(undefined, plugins),
      logger: { log: quiet, trace: quiet, debug: quiet, info: quiet, warn: say, error: say },
    });
    fs.writeFileSync(path.join(out, 'workers', workflowBundleFile(plugins)), code);
  }
}

/** What the compiled code reads beside itself, where it looks for it. */
function copyFiles(out: string): void {
  fs.cpSync(path.join(ROOT, 'schema/migrations'), path.join(out, 'schema/migrations'), { recursive: true });
  const dashboard = path.join(ROOT, 'dashboard/dist');
  // Built by the dashboard workspace's prepare script (npm ci); without it /app/ answers 503, as from source.
  if (fs.existsSync(dashboard)) fs.cpSync(dashboard, path.join(out, 'dashboard/dist'), { recursive: true });
  else say('dashboard/dist is missing (npm ci builds it): the build serves no dashboard');
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { name: string; version: string };
  // "type": "module" matters: a package.json without it would make node read dist/**/*.js as CommonJS.
  const manifest = { name: pkg.name, version: pkg.version, private: true, type: 'module' };
  fs.writeFileSync(path.join(out, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
}

/** Replaces dist/ with the new build, so a process starting meanwhile finds the old build or the new one, never half of one. */
function swapIn(staged: string): void {
  const old = `${OUT}.old-${process.pid}`;
  if (fs.existsSync(OUT)) fs.renameSync(OUT, old);
  fs.renameSync(staged, OUT);
  fs.rmSync(old, { recursive: true, force: true });
}

async function main(): Promise<void> {
  const started = performance.now();
  const staged = `${OUT}.new-${process.pid}`;
  fs.rmSync(staged, { recursive: true, force: true });
  try {
    await Promise.all([compile(staged), bundleWorkflows(staged)]);
    copyFiles(staged);
    swapIn(staged);
  } catch (error) {
    fs.rmSync(staged, { recursive: true, force: true });
    throw error;
  }
  say(`dist/ built in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

main().catch((error: unknown) => {
  say(error instanceof Error ? error.message : String(error));
  process.exit(1);
});
