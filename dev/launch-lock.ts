// One launcher per DATA_DIR. The lock is a pid file; a stale one (its process gone, e.g. after a
// SIGKILL) is taken over.
import fs from 'node:fs';
import path from 'node:path';
import { isProcessAlive } from './process-alive.ts';

export function acquireLaunchLock(dataDir: string): () => void {
  const file = path.join(dataDir, 'launcher.pid');
  const holder = fs.existsSync(file) ? Number(fs.readFileSync(file, 'utf8')) : NaN;
  if (Number.isInteger(holder) && holder !== process.pid && isProcessAlive(holder)) {
    throw new Error(`Another launcher (pid ${holder}) is running with DATA_DIR=${dataDir}. Stop it first, or use another DATA_DIR.`);
  }
  fs.writeFileSync(file, String(process.pid));
  return () => {
    if (fs.existsSync(file) && Number(fs.readFileSync(file, 'utf8')) === process.pid) fs.rmSync(file);
  };
}
