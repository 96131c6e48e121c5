// The steps of a build that do not depend on where it goes: the server compiled with tsc, and the files the
// compiled code reads beside itself. `npm run build` (dev/build.ts) makes dist/ with them; the tests make
// a build of their own under .data with them (test/helpers/harness/service-build.ts).
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { promisify } from 'node:util';

const ROOT = path.resolve(import.meta.dirname, '..');
const require = createRequire(import.meta.url);

/** Compiles the server with tsc into `out` (a sibling of dist/, so the source maps' relative paths hold after the swap). */
export async function compile(out: string): Promise<void> {
  const tsc = require.resolve('typescript/bin/tsc');
  try {
    await promisify(execFile)(process.execPath, [tsc, '-p', path.join(ROOT, 'tsconfig.build.json'), '--outDir', out], { cwd: ROOT });
  } catch (error) {
    const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
    throw new Error(`tsc failed:\n${stdout}${stderr}`);
  }
}

/** What the compiled code reads beside itself, where it looks for it. */
export function copyFiles(out: string, say: (line: string) => void): void {
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
