import fs from 'node:fs';

/**
 * Whether a process with this pid runs (EPERM: it runs but belongs to another user). A zombie (it
 * has exited; its parent has not reaped it) still answers kill(pid, 0), so on Linux its state is read.
 */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return true;
  }
}
