// The workflow bundle the tests run: the one a worker from source keeps under .data
// (workers/source-bundle-cache.ts), named by a hash of the code. So webpack runs once for every tier and
// worker process of a run, and not at all while the workflow code is unchanged; every test worker and the
// replay of recorded histories load this one file.
import path from 'node:path';
import { createLogger } from '../../../lib/logger.ts';
import { cachedSourceBundle } from '../../../workers/source-bundle-cache.ts';

/** The bundle of the current workflow code (made now if there is none yet); its path. */
export async function testWorkflowBundle(): Promise<string> {
  const file = await cachedSourceBundle(path.resolve('.data'), createLogger({ level: 'silent' }));
  if (!file) throw new Error('The tests run the service from its TypeScript source, which has no bundle kept for it');
  return file;
}
