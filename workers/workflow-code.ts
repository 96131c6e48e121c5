// Where a worker gets its workflow code. `npm run build` bundles the workflows once, beside the
// compiled worker (dist/workers/), so a production worker loads that file and is polling at once;
// run from source (development, tests), the worker has no such file beside it and bundles
// workflows/index.ts itself, which takes webpack several seconds. So does a worker with a plugin (the
// tracing plugin, workers/observability.ts): it adds workflow interceptors, which Temporal puts only
// into a bundle it makes itself (it ignores them beside a prebuilt one).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { WorkerOptions, WorkerPlugin } from '@temporalio/worker';

const here = path.dirname(fileURLToPath(import.meta.url));

/**
 * The workflows' entry, as this module runs: the source (what the build bundles, and what a worker from
 * source bundles at start), or in the build the compiled workflows, which a worker with a plugin bundles.
 */
export const WORKFLOWS_PATH = path.resolve(here, `../workflows/index${path.extname(fileURLToPath(import.meta.url))}`);

/**
 * The service's payload and failure converters (lib/payload-converter.ts, lib/failure-converter.ts) as
 * this module runs, for Temporal to load by path: in a worker, and into every workflow bundle.
 */
export function converterPaths(): { payloadConverterPath: string; failureConverterPath: string } {
  const extension = path.extname(fileURLToPath(import.meta.url));
  return {
    payloadConverterPath: path.resolve(here, `../lib/payload-converter${extension}`),
    failureConverterPath: path.resolve(here, `../lib/failure-converter${extension}`),
  };
}

/** What every workflow bundle is made from: the workflows and the service's converters. */
export function workflowBundleOptions(workflowsPath = WORKFLOWS_PATH) {
  return { workflowsPath, ...converterPaths() };
}

/** The name of the bundle `npm run build` writes beside the compiled worker. */
export const WORKFLOW_BUNDLE_FILE = 'workflow-bundle.js';

/** The prebuilt bundle's path when this module runs from a build that has one and no plugin needs its own bundle, else undefined. */
export function prebuiltWorkflowBundle(plugins: readonly WorkerPlugin[] = []): string | undefined {
  if (plugins.length > 0) return undefined;
  const file = path.join(here, WORKFLOW_BUNDLE_FILE);
  return fs.existsSync(file) ? file : undefined;
}

/** The worker option that names the workflow code: the prebuilt bundle when it serves, else the source. */
export function workflowCode(plugins: readonly WorkerPlugin[] = []): Pick<WorkerOptions, 'workflowBundle' | 'workflowsPath'> {
  const codePath = prebuiltWorkflowBundle(plugins);
  return codePath ? { workflowBundle: { codePath } } : { workflowsPath: WORKFLOWS_PATH };
}
