// Runs one script in a fresh QuickJS runtime and says how it ended. Synchronous and unbounded in CPU
// by nature, so it runs only in a thread of its own (thread.ts); its limits are the engine's: a heap
// limit, a stack limit, and an interrupt handler that stops the script at its deadline or once its
// output is full. The parent thread's backstops (threads.ts) cover what the engine does not stop.
import type { QuickJSContext, QuickJSHandle, QuickJSRuntime, QuickJSWASMModule } from 'quickjs-emscripten';
import { workspaceFileKey, workspaceListing } from '../workspace-files.ts';
import { OutputBuffer } from './output.ts';
import { PRELUDE } from './prelude.ts';
import type { ScriptFailure, ScriptJob, ScriptLimits, ScriptOutcome } from './protocol.ts';
import { boundedString, describeThrown, stringLength } from './vm-values.ts';

/**
 * The engine's stack: some three thousand frames of a plain recursion. Its frames take the thread's
 * native stack too (the interpreter recurses in WebAssembly), so it stays well below the thread's
 * 4 MiB: a deep recursion ends in the engine's "stack overflow", which the script may catch, rather
 * than in the thread's own RangeError (which thread.ts reports as an overflow all the same).
 */
const STACK_BYTES = 512 * 1024;
/** The name stack traces give the model's code. */
const FILENAME = 'script.js';
/** What a too-big result shows of itself. */
const EXCERPT_CHARS = 1024;
/** A path longer than this names no workspace file. */
const MAX_PATH_CHARS = 1024;

export function runScript(quickjs: QuickJSWASMModule, job: ScriptJob, limits: ScriptLimits): ScriptOutcome {
  const runtime = quickjs.newRuntime();
  runtime.setMemoryLimit(limits.memoryBytes);
  runtime.setMaxStackSize(STACK_BYTES);
  const output = new OutputBuffer(limits.outputBytes);
  const clock = { deadline: Infinity };
  runtime.setInterruptHandler(() => output.full || Date.now() > clock.deadline);
  // Nothing is freed: the thread ends after this one script, and freeing what an interrupted script
  // left behind can abort the engine (QuickJS asserts that every object is gone when its runtime is).
  return new Run(runtime, runtime.newContext(), job, limits, output, clock).outcome();
}

class Run {
  private readonly json: QuickJSHandle;
  private readonly head: QuickJSHandle;

  constructor(
    private readonly runtime: QuickJSRuntime,
    private readonly vm: QuickJSContext,
    private readonly job: ScriptJob,
    private readonly limits: ScriptLimits,
    private readonly output: OutputBuffer,
    private readonly clock: { deadline: number },
  ) {
    let head: QuickJSHandle | undefined;
    const write = vm.newFunction('write', (text) => {
      const read = head && boundedString(vm, head, text, limits.outputBytes);
      if (read) output.write(read.text);
    });
    const list = vm.newFunction('list', () => vm.newString(JSON.stringify(workspaceListing(job.files))));
    const read = vm.newFunction('read', (path) => {
      const name = (head && boundedString(vm, head, path, MAX_PATH_CHARS)?.text) ?? '';
      const key = workspaceFileKey(job.files, name);
      if (key === undefined) throw new Error(`No file "${name}" in the workspace; workspace.list() lists its files`);
      return vm.newString(job.files[key]!);
    });
    const prelude = vm.unwrapResult(vm.evalCode(PRELUDE, 'prelude.js'));
    const helpers = vm.unwrapResult(vm.callFunction(prelude, vm.undefined, write, list, read, vm.newNumber(limits.outputBytes)));
    this.json = vm.getProp(helpers, 'json');
    this.head = head = vm.getProp(helpers, 'head');
  }

  outcome(): ScriptOutcome {
    const source = this.compiled();
    if (typeof source !== 'string') return this.failed(source.error, true);
    this.clock.deadline = Date.now() + this.limits.timeMs;
    const evaluated = this.vm.evalCode(source, FILENAME);
    if (evaluated.error) return this.failed(evaluated.error);
    let value = evaluated.value;
    // Promise callbacks run here, all of them: the script has no timers, so nothing can come later.
    const jobs = this.runtime.executePendingJobs();
    if (jobs.error) return this.failed(jobs.error);
    // A callback interrupted at the deadline only rejects its own promise; the script's time is up all the same.
    if (Date.now() > this.clock.deadline) return this.stopped('time', '');
    const state = this.vm.getPromiseState(value);
    if (state.type === 'pending') return this.stopped('unsettled', '');
    if (state.type === 'rejected') return this.failed(state.error);
    if (!state.notAPromise) value = state.value;
    if (this.output.full) return this.stopped('output', '');
    return this.result(value);
  }

  /**
   * The code as a script, whose result is its last expression; or, when only a function body can hold
   * it (a top-level `return` or `await`), as the body of an async function whose promise is the result.
   */
  private compiled(): string | { error: QuickJSHandle } {
    const plain = this.vm.evalCode(this.job.code, FILENAME, { compileOnly: true });
    if (!plain.error) return this.job.code;
    // On the code's own first line, so line numbers in errors stay the model's.
    const body = `(async () => {${this.job.code}\n})()`;
    const wrapped = this.vm.evalCode(body, FILENAME, { compileOnly: true });
    return wrapped.error ? { error: plain.error } : body;
  }

  private result(value: QuickJSHandle): ScriptOutcome {
    const converted = this.vm.callFunction(this.json, this.vm.undefined, value);
    if (converted.error) return this.failed(converted.error, false, 'result-json');
    const json = converted.value;
    const stdout = this.output.text();
    if (this.vm.typeof(json) !== 'string') return { ok: true, stdout };
    const limit = this.limits.outputBytes;
    if (stringLength(this.vm, json) <= limit) {
      const text = this.vm.getString(json);
      if (Buffer.byteLength(text, 'utf8') <= limit) return { ok: true, stdout, result: text };
    }
    return this.stopped('result-size', boundedString(this.vm, this.head, json, EXCERPT_CHARS)?.text ?? '');
  }

  /** How a thrown value ended the script: a limit when one was reached, whatever the script made of it. */
  private failed(thrown: QuickJSHandle, compiling = false, otherwise: ScriptFailure = 'thrown'): ScriptOutcome {
    if (this.output.full) return this.stopped('output', '');
    if (Date.now() > this.clock.deadline) return this.stopped('time', '');
    const { name, text } = describeThrown(this.vm, this.head, thrown);
    if (name === 'InternalError') {
      if (/^InternalError: out of memory/.test(text)) return this.stopped('memory', text);
      if (/^InternalError: stack overflow/.test(text)) return this.stopped('stack', text);
      if (/^InternalError: interrupted/.test(text)) return this.stopped('time', text);
    }
    return this.stopped(compiling && name === 'SyntaxError' ? 'syntax' : otherwise, text);
  }

  private stopped(failure: ScriptFailure, detail: string): ScriptOutcome {
    return { ok: false, failure, detail, stdout: this.output.text() };
  }
}
