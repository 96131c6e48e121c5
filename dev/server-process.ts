// A server process this code spawned (a Temporal server of either kind): whether it has exited, and
// how it is stopped, the same way for each.
import type { ChildProcess } from 'node:child_process';

export interface ServerProcess {
  exited(): boolean;
  /** SIGTERM, then SIGKILL if it has not exited within 10 s; resolves once it has. */
  stop(): Promise<void>;
}

export function serverProcess(child: ChildProcess): ServerProcess {
  let exited = false;
  const exit = new Promise<void>((resolve) =>
    child.on('exit', () => {
      exited = true;
      resolve();
    }),
  );
  return {
    exited: () => exited,
    async stop() {
      if (exited) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exit;
      clearTimeout(timer);
    },
  };
}
