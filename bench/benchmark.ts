// What a benchmark is: a name, what it needs started, and a run that returns its figures as JSON.
// bench/run.ts finds every `*.bench.ts` here and calls its default export.
import type { Infra, Need } from './infra.ts';

export type { Need };

export interface BenchContext {
  infra: Infra;
  /** Progress, to stderr: stdout carries only the final JSON document. */
  log(line: string): void;
}

export interface Benchmark {
  name: string;
  description: string;
  needs: readonly Need[];
  run(context: BenchContext): Promise<Record<string, unknown>>;
}
