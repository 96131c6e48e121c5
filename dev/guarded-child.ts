// The child side of the launcher's supervision: start something, report `ready` over IPC, and stop
// it when told (SIGTERM/SIGINT) or when the launcher goes away (the IPC channel closes, which
// happens even if the launcher is killed with SIGKILL).
export interface Started {
  info: Record<string, unknown>;
  stop(): Promise<void>;
}

export function runGuarded(name: string, start: () => Promise<Started>): void {
  let started: Started | undefined;
  let stopping = false;
  const stop = async (reason: string) => {
    if (stopping) return;
    stopping = true;
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
  start().then(
    (result) => {
      started = result;
      if (stopping) void result.stop().finally(() => process.exit(0));
      else process.send?.({ type: 'ready', ...result.info });
    },
    (error: unknown) => {
      process.send?.({ type: 'failed', error: (error as Error).message });
      process.exit(1);
    },
  );
}
