// A worker run from source (the launcher's, the soak's, a developer's) bundles the workflows with
// webpack at start: seconds of CPU, and on a busy machine most of a restarted worker's time to ready.
// The bundle depends only on the code it is made from, so it is kept under DATA_DIR, named by a hash
// of that code (the folders workflow code may import: workflows/, core/, lib/, contract/, and the
// lockfile for the SDK's version and the plugins'); a worker whose code is unchanged loads it and polls
// at once. A worker with plugins (tracing) keeps a bundle of its own beside it, named by them.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode } from '@temporalio/worker';
import type { Logger } from '../lib/logger.ts';
import { temporalLogger } from '../lib/temporal-logger.ts';
import { workflowBundleFile, workflowBundleOptions, type WorkflowPlugin } from './workflow-code.ts';

/** Whether this module runs from the TypeScript source; a build carries its bundles beside it instead. */
const FROM_SOURCE = fileURLToPath(import.meta.url).endsWith('.ts');
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** What a workflow bundle is made from (lint keeps workflow code's imports within these). */
const SOURCES = ['workflows', 'core', 'lib', 'contract'];

/** The files under `dir` (none when it is missing) whose names `keep` takes, sorted: what a hash of code reads. */
export function filesUnder(dir: string, keep: (name: string) => boolean = (name) => name.endsWith('.ts')): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && keep(entry.name))
    .map((entry) => path.join(entry.parentPath, entry.name))
    .sort();
}

/** A hash of every file the bundle may be made from, and of the lockfile. */
function sourceHash(): string {
  const hash = crypto.createHash('sha256');
  for (const file of [...SOURCES.flatMap((dir) => filesUnder(path.join(ROOT, dir))), path.join(ROOT, 'package-lock.json')]) {
    hash.update(path.relative(ROOT, file)).update('\0');
    if (fs.existsSync(file)) hash.update(fs.readFileSync(file));
  }
  return hash.digest('hex').slice(0, 24);
}

/** Where a worker from source keeps its bundles under `dataDir`. */
export const workflowBundleDir = (dataDir: string) => path.join(dataDir, 'workflow-bundles');

/**
 * The bundle of the current source for a worker with these plugins, made once and kept in `dataDir`; its
 * path. Undefined when this code runs from a build, which has its bundles beside it (workflow-code.ts).
 */
export async function cachedSourceBundle(
  dataDir: string,
  logger: Logger,
  plugins: readonly WorkflowPlugin[] = [],
): Promise<string | undefined> {
  if (!FROM_SOURCE) return undefined;
  const dir = workflowBundleDir(dataDir);
  // workflow-bundle-<hash>.js, or workflow-bundle.OpenTelemetryPlugin-<hash>.js with the tracing plugin.
  const variant = workflowBundleFile(plugins).replace(/\.js$/, '');
  const file = path.join(dir, `${variant}-${sourceHash()}.js`);
  if (fs.existsSync(file)) return file;
  const { code } = await bundleWorkflowCode({
    ...workflowBundleOptions(undefined, plugins),
    logger: temporalLogger(logger.child({ component: 'temporal' })),
  });
  fs.mkdirSync(dir, { recursive: true });
  // Written aside and renamed: a worker starting meanwhile never loads half a bundle.
  const partial = `${file}.${process.pid}.partial`;
  fs.writeFileSync(partial, code);
  fs.renameSync(partial, file);
  // Bundles of older code for the same plugins are not needed again; those of other plugins are.
  for (const name of fs.readdirSync(dir)) {
    if (name !== path.basename(file) && name.startsWith(`${variant}-`) && name.endsWith('.js'))
      fs.rmSync(path.join(dir, name), { force: true });
  }
  logger.info({ file }, 'bundled the workflows from source; kept for the next start');
  return file;
}
