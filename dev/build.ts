// `npm run build`: the API and the worker as JavaScript in dist/, which `npm run api` and `npm run worker`
// run with plain node when NODE_ENV=production. dist/ mirrors the source tree (dist/api/server.js,
// dist/workers/main.js, ...), so the files the code reads relative to itself are copied to the same
// places: the migrations, the dashboard's built page, and a package.json for the version and module type.
// The workflows are bundled here once (dist/workers/workflow-bundle.js, and one for each plugin a worker
// may run with: workflow-bundle.OpenTelemetryPlugin.js for tracing), so a worker from the build does not
// run webpack when it starts. Types are not checked (tsconfig.build.json): `npm run typecheck` does that.
import fs from 'node:fs';
import path from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { compile, copyFiles } from './build-steps.ts';
import { pluginSetsToBundle, workflowBundleFile, workflowBundleOptions } from '../workers/workflow-code.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const OUT = path.join(ROOT, 'dist');
const say = (line: string) => process.stderr.write(`[build] ${line}\n`);

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
    copyFiles(staged, say);
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
