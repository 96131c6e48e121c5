// Runs scripts, each in a fresh thread (thread.ts) that is ended once it answers: nothing a script
// leaves behind in its engine meets the next one. A thread is started ahead of need, so a call
// rarely waits for one to load. A script never runs on the worker's own thread, whose event loop
// every other turn streams through, and the thread is ended from here at its deadline plus a grace,
// whatever the engine inside is doing (`backstopMs`); its V8 heap is bounded by `resourceLimits` and its engine's
// memory by the engine (engine.ts). At most `threads` scripts run at once, at most `perUser` of them
// one user's; others wait their turn in their user's queue, the users served in turn (fair-queue.ts), and
// one that cannot get a thread within `queueMs` is turned away.
import type { Worker } from 'node:worker_threads';
import { startThread } from '../start-thread.ts';
import { FairQueue } from './fair-queue.ts';
import { THREAD_READY, type ScriptFailure, type ScriptJob, type ScriptLimits, type ScriptOutcome } from './protocol.ts';

export interface SandboxOptions {
  limits: ScriptLimits;
  /** Scripts running at once, each on a thread (and a core) of its own. */
  threads: number;
  /**
   * Scripts of one user running at once. Below `threads`, one user's flood never holds every thread:
   * another user's script starts on the next free one.
   */
  perUser: number;
  /** How long a script waits for a thread before it is answered `busy`. */
  queueMs: number;
  /**
   * How long a script may run before its thread is ended from here, whatever its engine is doing: its
   * time limit and a grace for the engine to stop it first (it checks its deadline between instructions,
   * and one instruction can be long).
   */
  backstopMs: number;
  /** How long a thread may take to load its engine. */
  startMs: number;
  /** A thread's V8 heap (its own JavaScript and what crosses from the engine, not the engine's memory). */
  heapMb: number;
}

export interface Sandbox {
  /** Runs `job` for `userId`, in that user's turn among the users with scripts waiting. */
  run(job: ScriptJob, userId: string): Promise<ScriptOutcome>;
  close(): Promise<void>;
}

interface Thread {
  worker: Worker;
  /** Settles once the engine is loaded: undefined, or why the thread ended first. */
  ready: Promise<string | undefined>;
}

interface Waiting {
  job: ScriptJob;
  resolve: (outcome: ScriptOutcome) => void;
  timer: NodeJS.Timeout;
}

const failure = (kind: ScriptFailure, detail = ''): ScriptOutcome => ({ ok: false, failure: kind, detail, stdout: '' });

export function createSandbox(options: SandboxOptions): Sandbox {
  let spare: Thread | undefined;
  let running = 0;
  let closed = false;
  const waiting = new FairQueue<Waiting>(options.perUser);
  const live = new Set<Worker>();

  function spawn(): Thread {
    const worker = startThread(import.meta.url, './thread', {
      workerData: options.limits,
      resourceLimits: { maxOldGenerationSizeMb: options.heapMb, maxYoungGenerationSizeMb: Math.min(16, options.heapMb) },
    });
    // A spare thread must not keep the process alive; a running one is awaited by its call.
    worker.unref();
    live.add(worker);
    worker.once('exit', () => {
      live.delete(worker);
      if (spare?.worker === worker) spare = undefined;
    });
    const ready = new Promise<string | undefined>((resolve) => {
      worker.once('message', () => resolve(undefined));
      worker.once('error', (error) => resolve(error.message));
      worker.once('exit', (code) => resolve(`the thread exited (${code}) while loading`));
    });
    return { worker, ready };
  }

  /** The spare if there is one (and a new spare for the next call), else a new thread. */
  function take(): Thread {
    const thread = spare ?? spawn();
    spare = closed ? undefined : spawn();
    return thread;
  }

  async function execute(job: ScriptJob): Promise<ScriptOutcome> {
    const { worker, ready } = take();
    try {
      let startTimer: NodeJS.Timeout | undefined;
      const slow = new Promise<string>(
        (resolve) => (startTimer = setTimeout(() => resolve('the thread took too long to start'), options.startMs)),
      );
      const unready = await Promise.race([ready, slow]);
      clearTimeout(startTimer);
      if (unready !== undefined) return failure('crash', unready);
      return await answer(worker, job);
    } finally {
      void worker.terminate();
    }
  }

  /** The thread's answer, or the backstop's: its heap exhausted, its time (and grace) past, its end. */
  function answer(worker: Worker, job: ScriptJob): Promise<ScriptOutcome> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(failure('time')), options.backstopMs);
      const settle = (outcome: ScriptOutcome) => {
        clearTimeout(timer);
        resolve(outcome);
      };
      worker.on('message', (message: ScriptOutcome | typeof THREAD_READY) => {
        if (message !== THREAD_READY) settle(message);
      });
      worker.on('error', (error: Error & { code?: string }) =>
        settle(error.code === 'ERR_WORKER_OUT_OF_MEMORY' ? failure('memory', error.message) : failure('crash', error.message)),
      );
      worker.on('exit', (code) => settle(failure('crash', `the thread exited (${code})`)));
      worker.postMessage(job);
    });
  }

  function next(): void {
    while (running < options.threads) {
      const started = waiting.next();
      if (!started) return;
      const { job, resolve, timer } = started.item;
      clearTimeout(timer);
      running++;
      void execute(job)
        .then(resolve, (error: unknown) => resolve(failure('crash', error instanceof Error ? error.message : String(error))))
        .finally(() => {
          running--;
          waiting.done(started.user);
          next();
        });
    }
  }

  return {
    run(job, userId) {
      if (closed) return Promise.resolve(failure('crash', 'the worker is shutting down'));
      return new Promise((resolve) => {
        const entry: Waiting = {
          job,
          resolve,
          timer: setTimeout(() => {
            waiting.remove(userId, entry);
            resolve(failure('busy'));
          }, options.queueMs),
        };
        waiting.push(userId, entry);
        next();
      });
    },
    async close() {
      closed = true;
      spare = undefined;
      for (const entry of waiting.drain()) {
        clearTimeout(entry.timer);
        entry.resolve(failure('crash', 'the worker is shutting down'));
      }
      await Promise.all([...live].map((worker) => worker.terminate()));
    },
  };
}
