// The child side of the launcher's supervision: start something, report `ready` over IPC, and stop
// it when told (SIGTERM/SIGINT) or when the launcher goes away (the IPC channel closes, which
// happens even if the launcher is killed with SIGKILL).
export interface Started {
  info: Record<string, unknown>;
  stop(): Promise<void>;
}

export function runGuarded(name: string, start: () => Promise<Started>): void {
  let stopping = false;
  const stop = async (reason: string) => {
    if (stopping) return;
    stopping = true;
    // A stop during start-up waits for the start to finish, so that the server it spawned is
    // stopped too rather than left running (the launcher kills this group if that takes too long).
    const started = await starting.catch(() => undefined);
    try {
      await started?.stop();
    } catch (error) {
      console.error(`[${name}] stop failed after ${reason}: ${(error as Error).message}`);
    }
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('disconnect', () => void stop('launcher exited'));
  // After the handlers (which run only later, once it is set): what starts can tell them from
  // listeners it adds itself (see embedded-postgres.ts).
  const starting = start();
  starting.then(
    (result) => {
      if (!stopping) process.send?.({ type: 'ready', ...result.info });
    },
    (error: unknown) => {
      if (stopping) return;
      process.send?.({ type: 'failed', error: (error as Error).message });
      process.exit(1);
    },
  );
}
