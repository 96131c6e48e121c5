// What a benchmark set up, undone in reverse order: each step registered as it is set up, and a
// failing step is reported while the rest still run, so a half-started stack is still taken down.
export interface Cleanups {
  /** Registers how to undo what was just set up. */
  push(what: string, cleanup: () => Promise<unknown>): void;
  /** Runs every registered step, last first, once. */
  run(): Promise<void>;
}

export function cleanups(log: (line: string) => void): Cleanups {
  const steps: Array<[string, () => Promise<unknown>]> = [];
  return {
    push(what, cleanup) {
      steps.push([what, cleanup]);
    },
    async run() {
      for (const [what, cleanup] of steps.splice(0).reverse()) {
        await cleanup().catch((error: unknown) => log(`cleanup (${what}) failed: ${(error as Error).message}`));
      }
    },
  };
}
