// What passes between the code tool and the thread that runs one script: the job, and how it ended.
// Plain data, so it crosses postMessage as it is.

export interface ScriptLimits {
  /** Wall-clock time the script may run, from its first instruction. */
  timeMs: number;
  /** The QuickJS runtime's heap. */
  memoryBytes: number;
  /** UTF-8 bytes of console output kept, and of the result's JSON. */
  outputBytes: number;
}

/** Sent to a thread once it is ready; its limits came with its start (`workerData`). */
export interface ScriptJob {
  code: string;
  /** The agent's workspace files (the bundle's `workspaceFiles`), read-only to the script. */
  files: Record<string, string>;
}

/** A thread's first message, once its engine is loaded; its second and last is the ScriptOutcome. */
export const THREAD_READY = 'ready';

/**
 * Why a script failed. `time`, `memory`, `stack`, `output` and `result-size` are limits; `result-json`
 * is a result JSON cannot hold (a cycle); `unsettled`, a promise result nothing will settle; `busy`, no
 * thread free in time; `crash`, the thread ending without an answer (the parent's backstops end in
 * `time` or `memory` where they can tell).
 */
export type ScriptFailure =
  'syntax' | 'thrown' | 'time' | 'memory' | 'stack' | 'output' | 'result-size' | 'result-json' | 'unsettled' | 'busy' | 'crash';

export type ScriptOutcome =
  /** `result`: the JSON text of the result; absent when it was undefined. */
  | { ok: true; stdout: string; result?: string }
  /** `detail`: the error as the engine put it, or the start of what was too big; `stdout`: what was printed before. */
  | { ok: false; failure: ScriptFailure; detail: string; stdout: string };
