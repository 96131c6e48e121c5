// The `code` tool server: runs the JavaScript the model writes in a WebAssembly sandbox (QuickJS, in
// a thread of its own: code-sandbox/). What the script printed and its result go back to the model;
// whatever stops it (a limit, an error, a syntax error) goes back as a tool error it can act on.
import { availableParallelism } from 'node:os';
import { CODE_TOOL_LIMITS } from '../../contract/tool-servers.ts';
import { createSandbox, type Sandbox } from './code-sandbox/threads.ts';
import type { ScriptOutcome } from './code-sandbox/protocol.ts';
import { defineBuiltinTool, toolError } from './define.ts';
import type { ToolOutcome } from './types.ts';
import { utf8Prefix } from './utf8.ts';

/** How much of what a failed script printed its error shows: enough to see where it was. */
const ERROR_OUTPUT_BYTES = 4096;

const LIMITS = { timeMs: CODE_TOOL_LIMITS.timeMs, memoryBytes: CODE_TOOL_LIMITS.memoryBytes, outputBytes: CODE_TOOL_LIMITS.outputBytes };

/**
 * Scripts at once: one per core, from 2 to 4, bounds what scripts take from a worker process (a core and
 * about 150 MiB each at most: engine memory, V8 heap, the thread). One user's share (CODE_SCRIPTS_PER_USER)
 * stays below it, so one user's endless scripts never take every thread, nor every core.
 */
const THREADS = Math.min(4, Math.max(2, availableParallelism()));
/** CODE_SCRIPTS_PER_USER's default, for a sandbox made before any worker gave its setting. */
const DEFAULT_SCRIPTS_PER_USER = 2;

let shared: Sandbox | undefined;

/**
 * The process's sandbox: one set of threads however many workers the process runs, made by the first
 * worker's activities with its CODE_SCRIPTS_PER_USER (every worker of a process reads one environment).
 */
export function codeSandbox(settings: { scriptsPerUser: number } = { scriptsPerUser: DEFAULT_SCRIPTS_PER_USER }): Sandbox {
  shared ??= createSandbox({
    limits: LIMITS,
    threads: THREADS,
    perUser: Math.min(settings.scriptsPerUser, THREADS - 1),
    queueMs: 30_000,
    backstopMs: LIMITS.timeMs + 1000,
    startMs: 15_000,
    heapMb: 64,
  });
  return shared;
}

/** Whose queue a call with no known user waits in: one shared by all such calls (none comes from a turn). */
const NO_USER = '';

export const runJavascript = defineBuiltinTool<{ code: string }>('code', 'run_javascript', async ({ code }, { bundle, userId }) =>
  toolOutcome(await codeSandbox().run({ code, files: bundle.workspaceFiles }, userId ?? NO_USER)),
);

/** The script's output and result, or its failure in words. */
export function toolOutcome(outcome: ScriptOutcome): ToolOutcome {
  if (outcome.ok) {
    const result = outcome.result === undefined ? {} : { result: JSON.parse(outcome.result) as unknown };
    return { output: { ...result, stdout: outcome.stdout }, isError: false };
  }
  const printed = outcome.stdout && `\nWhat it printed before:\n${excerpt(outcome.stdout)}`;
  const { timeMs, memoryBytes, outputBytes } = LIMITS;
  const kib = `${outputBytes / 1024} KiB`;
  switch (outcome.failure) {
    case 'syntax':
      return toolError(`The code does not parse: ${outcome.detail}`);
    case 'thrown':
      return toolError(`The script threw an error: ${outcome.detail}${printed}`);
    case 'time':
      return toolError(`The script ran past the time limit of ${timeMs / 1000} s and was stopped.${printed}`);
    case 'memory':
      return toolError(`The script ran out of memory (the limit is ${memoryBytes / 2 ** 20} MiB) and was stopped.${printed}`);
    case 'stack':
      return toolError(`The script overflowed the stack (too deep a recursion) and was stopped: ${firstLines(outcome.detail)}${printed}`);
    case 'output':
      return toolError(
        `The script printed more than ${kib}, the output limit, and was stopped; print less (a count, a summary, a slice). ` +
          `The start of its output:\n${excerpt(outcome.stdout)}`,
      );
    case 'result-size':
      return toolError(
        `The script's result is more than ${kib} as JSON, the result limit; return less (a count, a summary, a slice). ` +
          `Its start: ${outcome.detail}`,
      );
    case 'result-json':
      return toolError(`The script's result cannot be turned into JSON: ${outcome.detail}${printed}`);
    case 'unsettled':
      return toolError(
        `The script's result is a promise that never settles (nothing here can settle it later: no timers, no I/O).${printed}`,
      );
    case 'busy':
      return toolError('The code sandbox is busy with other scripts on this worker; try again in a moment.');
    case 'crash':
      return toolError(`The sandbox stopped without an answer: ${outcome.detail}`);
    default:
      return outcome.failure satisfies never;
  }
}

function excerpt(text: string): string {
  const bytes = Buffer.from(text, 'utf8');
  return bytes.length <= ERROR_OUTPUT_BYTES
    ? text
    : `${utf8Prefix(bytes, ERROR_OUTPUT_BYTES)}\n... (${bytes.length - ERROR_OUTPUT_BYTES} more bytes)`;
}

/** A stack overflow's trace repeats one frame; its first lines say where. */
function firstLines(text: string, count = 4): string {
  return text.split('\n').slice(0, count).join('\n');
}
