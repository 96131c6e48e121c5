// The workflow bundle the tests run, built once per tier as the worker builds it (workers/workflow-code.ts)
// and written to `dir`: every test worker and the replay of recorded histories load this one file.
import fs from 'node:fs';
import path from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { workflowBundleOptions } from '../../../workers/workflow-code.ts';

const noop = () => undefined;
const quietLogger = { log: noop, trace: noop, debug: noop, info: noop, warn: noop, error: noop };

/** Bundles the workflows into `dir`; answers the file's path. */
export async function writeWorkflowBundle(dir: string): Promise<string> {
  const bundle = await bundleWorkflowCode({ ...workflowBundleOptions(), logger: quietLogger });
  const file = path.join(dir, 'workflow-bundle.js');
  fs.writeFileSync(file, bundle.code);
  return file;
}
