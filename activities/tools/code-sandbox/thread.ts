// The thread that runs one script of the `code` tool server (threads.ts starts it, gives it its
// limits, and ends it after that one script). It loads and warms its engine first and says so, so a
// thread started ahead of need makes the next call wait for nothing.
import { parentPort, workerData } from 'node:worker_threads';
import { loadEngine } from './engine.ts';
import { THREAD_READY, type ScriptJob, type ScriptLimits, type ScriptOutcome } from './protocol.ts';
import { runScript } from './run-script.ts';

const limits = workerData as ScriptLimits;
const engine = await loadEngine(limits.memoryBytes);
// The first script of a thread runs cold (the engine's glue code and the interpreter's paths not yet
// compiled), several times slower than the next: this one, before the thread says it is ready, so
// the model's runs warm. Its runtime shares nothing with the next one's.
runScript(engine, { code: "console.log(workspace.list().length, workspace.read('a')); ({ a: [1, 'b'] })", files: { a: 'a' } }, limits);

function run(job: ScriptJob): ScriptOutcome {
  try {
    return runScript(engine, job, limits);
  } catch (error) {
    // The engine's recursion can exhaust this thread's native stack before its own stack limit
    // counts it; what it printed is lost with the engine.
    const detail = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    return { ok: false, failure: /call stack/i.test(detail) ? 'stack' : 'crash', detail, stdout: '' };
  }
}

parentPort!.once('message', (job: ScriptJob) => parentPort!.postMessage(run(job)));
parentPort!.postMessage(THREAD_READY);
