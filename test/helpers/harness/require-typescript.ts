// A vitest setup file (vitest.config.ts `setupFiles`): lets a test's in-process worker load the
// service's payload converter by path, as Temporal does, from its TypeScript source. Temporal loads it
// with Node's require, which vitest's own transform does not reach; tsx's CommonJS hook does, as it
// does in a worker process run with `node --import tsx` (`npm run worker`).
import { register } from 'tsx/cjs/api';

register();
