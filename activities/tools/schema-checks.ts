// Checks of values against tenants' JSON Schemas (custom tool parameters, jsonReply.schema), each in a
// thread of its own with a time and memory budget (schema-thread.ts says why): a check past
// SCHEMA_CHECK_TIMEOUT_MS, or past the thread's heap, ends that thread and answers "too costly", and the
// worker's other turns never wait on it. Threads start when first needed, one per check running at once
// up to `threads`, and are kept for the next; none keeps the process alive.
import type { Worker } from 'node:worker_threads';
import type { JsonObject } from '../../contract/bundle.ts';
import type { CheckAnswer, CheckRequest } from './schema-thread.ts';
import { startThread } from './start-thread.ts';

export type SchemaVerdict = { valid: true } | { valid: false; errors: string[] } | { valid: false; unusable: string };

export interface SchemaChecks {
  /** Checks `value` against `schema`; `root` names the value in the messages ("the input", "the reply"). */
  check(schema: JsonObject, value: unknown, root: string): Promise<SchemaVerdict>;
  close(): Promise<void>;
}

export interface SchemaCheckOptions {
  /** How long one check may run before its thread is ended. */
  timeoutMs: number;
  /** Checks running at once (a thread each); more wait their turn. */
  threads: number;
  /** A thread's heap: an exponential check's error list ends it here rather than grow the worker. */
  heapMb?: number;
  /** The threads' code (startThread's `from` and `module`): schema-thread.ts; tests give one that misbehaves. */
  threadCode?: { from: string; module: string };
}

/** A thread and when it has loaded its code (it says so once). */
interface Thread {
  worker: Worker;
  ready: Promise<void>;
  exited: () => boolean;
}

/** The thread's code by default: the compiled file beside this one, or from source through tsx (as `npm start` runs). */
const SCHEMA_THREAD = { from: import.meta.url, module: './schema-thread' };

function spawn(heapMb: number, code: { from: string; module: string }, onExit: (thread: Thread) => void): Thread {
  const resourceLimits = { maxOldGenerationSizeMb: heapMb, maxYoungGenerationSizeMb: Math.min(32, heapMb) };
  const worker = startThread(code.from, code.module, { resourceLimits });
  worker.unref();
  // An error with no listener would throw in the worker process and end every turn it runs. While a check
  // runs, its own listener answers it (run, below); an error after that belongs to a thread nobody waits on:
  // one ended for its time that reached its heap limit while ending (ERR_WORKER_OUT_OF_MEMORY comes after
  // terminate() then), or a kept thread that failed. It is gone, and the next check gets a new one.
  worker.on('error', () => {});
  // Resolves on the thread's first message; a thread that dies loading resolves too, and its check then
  // fails by the exit it sees.
  const ready = new Promise<void>((resolve) => {
    worker.once('message', () => resolve());
    worker.once('exit', () => resolve());
  });
  let exited = false;
  const thread: Thread = { worker, ready, exited: () => exited };
  worker.once('exit', () => {
    exited = true;
    onExit(thread);
  });
  return thread;
}

interface Job {
  request: CheckRequest;
  resolve: (verdict: SchemaVerdict) => void;
}

export function schemaChecks(options: SchemaCheckOptions): SchemaChecks {
  const heapMb = options.heapMb ?? 128;
  const code = options.threadCode ?? SCHEMA_THREAD;
  const idle: Thread[] = [];
  const busy = new Set<Thread>();
  const waiting: Job[] = [];
  let nextId = 1;
  let closed = false;

  async function run(thread: Thread, job: Job): Promise<void> {
    const { worker } = thread;
    busy.add(thread);
    await thread.ready;
    let settled = false;
    const finish = (verdict: SchemaVerdict, keep: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      worker.off('message', onMessage);
      worker.off('error', onError);
      worker.off('exit', onExit);
      busy.delete(thread);
      if (keep && !closed) idle.push(thread);
      else void worker.terminate();
      job.resolve(verdict);
      next();
    };
    const tooCostly = (why: string) =>
      finish({ valid: false, unusable: `Checking it against the schema ${why}: the schema is too costly to check for this value` }, false);
    const onMessage = (answer: CheckAnswer) => {
      if (answer.id !== job.request.id) return;
      if ('unusable' in answer) finish({ valid: false, unusable: answer.unusable }, true);
      else finish(answer.valid ? { valid: true } : { valid: false, errors: answer.errors }, true);
    };
    const onError = (error: Error) =>
      (error as { code?: string }).code === 'ERR_WORKER_OUT_OF_MEMORY'
        ? tooCostly(`took more than ${heapMb} MiB`)
        : finish({ valid: false, unusable: `The value could not be checked: ${error.message}` }, false);
    const onExit = () => finish({ valid: false, unusable: 'The value could not be checked: the checking thread stopped' }, false);
    const timer = setTimeout(() => tooCostly(`took longer than ${options.timeoutMs} ms`), options.timeoutMs);
    worker.on('message', onMessage);
    worker.on('error', onError);
    worker.on('exit', onExit);
    if (thread.exited()) onExit();
    else worker.postMessage(job.request);
  }

  /** A kept thread that ended (it failed between checks) is not handed the next check. */
  function forget(thread: Thread): void {
    const at = idle.indexOf(thread);
    if (at >= 0) idle.splice(at, 1);
  }

  function next(): void {
    while (waiting.length > 0 && (idle.length > 0 || busy.size < options.threads)) {
      void run(idle.pop() ?? spawn(heapMb, code, forget), waiting.shift()!);
    }
  }

  return {
    check(schema, value, root) {
      if (closed) return Promise.resolve({ valid: false, unusable: 'The worker is shutting down' });
      return new Promise((resolve) => {
        waiting.push({ request: { id: nextId++, schema, value, root }, resolve });
        next();
      });
    },
    async close() {
      closed = true;
      await Promise.all([...idle.splice(0), ...busy].map((thread) => thread.worker.terminate()));
    },
  };
}

const shared = new Map<string, SchemaChecks>();

/**
 * The process's checks for these options: one set of threads however many workers the process runs
 * (the tests run many), so idle threads never pile up. Never closed: its threads do not hold the process.
 */
export function sharedSchemaChecks(options: SchemaCheckOptions): SchemaChecks {
  const key = JSON.stringify(options);
  let checks = shared.get(key);
  if (!checks) shared.set(key, (checks = schemaChecks(options)));
  return checks;
}
