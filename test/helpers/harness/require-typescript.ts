// A vitest setup file (vitest.config.ts `setupFiles`): lets a test's in-process worker load the
// service's payload converter by path, as Temporal does, from its TypeScript source. Temporal loads it
// with Node's require, which vitest's own transform does not reach; tsx's CommonJS hook does, as it
// does in a worker process run with `node --import tsx` (`npm run worker`).
//
// The service tier shares a process between test files (vitest.config.ts, `isolate: false`), and this
// file runs before each of them: the hook is registered once per process, not once per file.
import { register } from 'tsx/cjs/api';

const REGISTERED = Symbol.for('agent-service.test.tsx-cjs-registered');
const marks = globalThis as { [REGISTERED]?: true };
if (!marks[REGISTERED]) {
  register();
  marks[REGISTERED] = true;
}
