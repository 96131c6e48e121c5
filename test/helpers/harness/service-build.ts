// The service as the tests' own API and worker processes run it (launch.ts, `fromBuild`): compiled by tsc
// as `npm run build` compiles it, once per version of the code, into .data/service-build/<hash>, with the
// workflow bundles a worker from source keeps (workers/source-bundle-cache.ts) beside the compiled worker.
// A process from it starts on about half the CPU of one from the TypeScript source through tsx, whose
// loader hooks see each of the 1,300 modules a worker imports (a worker to polling: 3.1 against 5.0
// CPU-s, `npm run bench worker-start`), and the service tier starts well over a hundred of them.
// `npm start`, and so the launcher's tests, still run the source as a newcomer does.
//
// Made by the service tier's global setup. Each build is kept under the hash of what it is made from, so
// a run whose code is unchanged reuses it; another run making the same build meanwhile waits for it.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { compile, copyFiles } from '../../../dev/build-steps.ts';
import { createLogger } from '../../../lib/logger.ts';
import { cachedSourceBundle, filesUnder } from '../../../workers/source-bundle-cache.ts';
import { pluginSetsToBundle, workflowBundleFile } from '../../../workers/workflow-code.ts';

const ROOT = path.resolve(import.meta.dirname, '../../..');
const BUILDS = path.join(ROOT, '.data', 'service-build');
/** The folders the compiled server may import from (tsconfig.build.json's entries lead only into these). */
const SOURCES = ['api', 'activities', 'clients', 'contract', 'core', 'dev', 'lib', 'store', 'workers', 'workflows'];
/** What the build copies beside the code, and what decides how it compiles. */
const COPIED = ['schema/migrations', 'dashboard/dist'];
const SETTINGS = ['package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json'];
/** How long a run waits for another run's build of the same code before it gives up. */
const WAIT_FOR_OTHER_MS = 300_000;

/** A hash of every file the build is made from. */
function codeHash(): string {
  const files = [
    ...SOURCES.flatMap((dir) => filesUnder(path.join(ROOT, dir))),
    ...COPIED.flatMap((dir) => filesUnder(path.join(ROOT, dir), () => true)),
    ...SETTINGS.map((file) => path.join(ROOT, file)),
  ].sort();
  const hash = crypto.createHash('sha256');
  for (const file of files) hash.update(path.relative(ROOT, file)).update('\0').update(fs.readFileSync(file)).update('\0');
  return hash.digest('hex').slice(0, 24);
}

/** Whether the process that took a lock still runs (a run stopped with Ctrl-C leaves its lock behind). */
function holderRuns(lock: string): boolean {
  let pid: number;
  try {
    pid = Number(fs.readFileSync(path.join(lock, 'pid'), 'utf8'));
  } catch {
    return true; // Taken this instant (its pid not written yet), or released: look again.
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Runs `make` holding `lock` (a folder: mkdir is atomic), once no other process holds it. */
async function withLock(lock: string, make: () => Promise<void>): Promise<void> {
  const until = Date.now() + WAIT_FOR_OTHER_MS;
  for (;;) {
    try {
      fs.mkdirSync(lock, { recursive: false });
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      if (!holderRuns(lock)) fs.rmSync(lock, { recursive: true, force: true });
      else if (Date.now() > until) throw new Error(`Another test run has been building the service for 5 minutes (${lock})`);
      else await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
  fs.writeFileSync(path.join(lock, 'pid'), String(process.pid));
  try {
    await make();
  } finally {
    fs.rmSync(lock, { recursive: true, force: true });
  }
}

/** The build of the current code, made now unless a run made it before; its folder. */
export async function serviceBuild(say: (line: string) => void): Promise<string> {
  const hash = codeHash();
  const dir = path.join(BUILDS, hash);
  if (fs.existsSync(dir)) return dir;
  fs.mkdirSync(BUILDS, { recursive: true });
  await withLock(`${dir}.lock`, async () => {
    if (fs.existsSync(dir)) return;
    const started = performance.now();
    const staged = `${dir}.partial`;
    fs.rmSync(staged, { recursive: true, force: true });
    const logger = createLogger({ level: 'silent' });
    // The bundles are those workers from source keep under .data: the plain one is the tests' own
    // (workflow-bundle.ts), made already or now, and tracing's is made once for each version of the code.
    const [, ...bundles] = await Promise.all([
      compile(staged),
      ...pluginSetsToBundle().map(async (plugins) => ({
        plugins,
        file: await cachedSourceBundle(path.join(ROOT, '.data'), logger, plugins),
      })),
    ]);
    copyFiles(staged, say);
    for (const { plugins, file } of bundles) fs.copyFileSync(file!, path.join(staged, 'workers', workflowBundleFile(plugins)));
    fs.renameSync(staged, dir);
    // Builds of older code are not run again.
    for (const name of fs.readdirSync(BUILDS)) {
      if (name !== hash && !name.endsWith('.lock')) fs.rmSync(path.join(BUILDS, name), { recursive: true, force: true });
    }
    say(
      `the service compiled for the tests' processes in ${((performance.now() - started) / 1000).toFixed(1)} s (${path.relative(ROOT, dir)})`,
    );
  });
  return dir;
}
