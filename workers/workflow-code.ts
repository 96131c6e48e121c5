// Where a worker gets its workflow code. `npm run build` bundles the workflows once, beside the
// compiled worker (dist/workers/), so a production worker loads that file and is polling at once; run
// from source (development, tests), the worker keeps a bundle of the source under DATA_DIR instead
// (workers/source-bundle-cache.ts). A worker with a plugin (the tracing plugin, workers/observability.ts)
// needs a bundle of its own: the plugin adds workflow interceptors, which must be bundled in (Temporal
// ignores them beside a bundle made without them). So each set of plugins has its bundle, named by them.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BundlerPlugin, WorkerOptions, WorkerPlugin } from '@temporalio/worker';
import { OpenTelemetryPlugin } from '@temporalio/interceptors-opentelemetry';
import { Resource } from '@opentelemetry/resources';
import { NoopSpanProcessor } from '@opentelemetry/sdk-trace-base';

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

/** A worker's plugin that may add workflow interceptors: the bundler applies it too. */
export type WorkflowPlugin = WorkerPlugin & BundlerPlugin;

/** What every workflow bundle is made from: the workflows, the service's converters, and the plugins' interceptors. */
export function workflowBundleOptions(workflowsPath = WORKFLOWS_PATH, plugins: readonly BundlerPlugin[] = []) {
  return { workflowsPath, ...converterPaths(), ...(plugins.length > 0 ? { plugins: [...plugins] } : {}) };
}

/** The name of the bundle `npm run build` writes beside the compiled worker, for a worker with no plugin. */
export const WORKFLOW_BUNDLE_FILE = 'workflow-bundle.js';

/**
 * The name of the bundle for a worker with these plugins: workflow-bundle.js without one, else named by
 * them (workflow-bundle.OpenTelemetryPlugin.js). A plugin's interceptors are fixed by its kind, not by its
 * settings, so its name is enough.
 */
export function workflowBundleFile(plugins: readonly { name: string }[] = []): string {
  if (plugins.length === 0) return WORKFLOW_BUNDLE_FILE;
  return `workflow-bundle.${plugins
    .map((plugin) => plugin.name)
    .sort()
    .join('+')}.js`;
}

/** The prebuilt bundle for these plugins when this module runs from a build that has it, else undefined. */
export function prebuiltWorkflowBundle(plugins: readonly WorkerPlugin[] = []): string | undefined {
  const file = path.join(here, workflowBundleFile(plugins));
  return fs.existsSync(file) ? file : undefined;
}

/** The worker option that names the workflow code: the prebuilt bundle when it serves, else the source. */
export function workflowCode(plugins: readonly WorkerPlugin[] = []): Pick<WorkerOptions, 'workflowBundle' | 'workflowsPath'> {
  const codePath = prebuiltWorkflowBundle(plugins);
  return codePath ? { workflowBundle: { codePath } } : { workflowsPath: WORKFLOWS_PATH };
}

/**
 * The sets of plugins a worker may run with, for `npm run build` to bundle the workflows for each: none, and
 * tracing's. A bundle takes only a plugin's workflow interceptors, which do not depend on its settings.
 */
export function pluginSetsToBundle(): WorkflowPlugin[][] {
  return [[], [new OpenTelemetryPlugin({ resource: Resource.empty(), spanProcessor: new NoopSpanProcessor() })]];
}
