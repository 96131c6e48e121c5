// Starts a worker thread on a module of this source tree. In a build (`npm run build`) the module is
// the compiled .js beside the caller; from source (`npm start`, the tests) it is the .ts, loaded
// through tsx, which Node 20 does not pass on to threads: the thread registers tsx itself first.
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker, type WorkerOptions } from 'node:worker_threads';

/** tsx's ESM API (its `import` export), which the thread registers before it loads source files. */
function tsxApi(): string {
  const require = createRequire(import.meta.url);
  const manifest = require.resolve('tsx/package.json');
  const { exports } = require(manifest) as { exports: Record<string, { import: { default: string } }> };
  return new URL(exports['./esm/api']!.import.default, pathToFileURL(manifest)).href;
}

/**
 * A thread running `module` (a path relative to `from`, without its extension; `from` is the caller's
 * `import.meta.url`). Whichever file it names must be listed in tsconfig.build.json, which compiles
 * only what its entry files import.
 */
export function startThread(from: string, module: string, options: WorkerOptions = {}): Worker {
  if (!from.endsWith('.ts')) return new Worker(new URL(`${module}.js`, from), options);
  const source = new URL(`${module}.ts`, from).href;
  const code = `import(${JSON.stringify(tsxApi())}).then((api) => { api.register(); return import(${JSON.stringify(source)}); })`;
  return new Worker(code, { ...options, eval: true });
}
