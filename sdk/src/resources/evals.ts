import type { EvalRunBody, EvalRunList, EvalRunView, EvalSetList, EvalSetSummary, EvalSetView } from '../contract.ts';
import { APIConnectionError, APIError, APITimeoutError, APIUserAbortError } from '../errors.ts';
import { isRetryableStatus, retryDelayMs, sleep } from '../retry.ts';
import { parseServerSentEvents } from '../sse.ts';
import { path, type RequestOptions } from '../transport.ts';
import { Resource } from './resource.ts';

export interface EvalWaitOptions {
  /** Between two reads of the run. Default 2 s. */
  intervalMs?: number;
  /** Give up (APITimeoutError) after this long; by default wait until the run ends. The run goes on either way. */
  timeoutMs?: number;
  signal?: AbortSignal;
}

const DEFAULT_INTERVAL_MS = 2000;

/** A run's progress as `progress()` yields it: each case once as it ends, the run after each change, then its end. */
export type EvalProgress = { type: 'case'; case: EvalRunView['cases'][number] } | { type: 'run' | 'end'; run: Omit<EvalRunView, 'cases'> };

/** Streams in a row that closed before the run's end before progress() gives up. */
const MAX_PROGRESS_RECONNECTS = 5;

/** What a run's turns may cost (rubric judges not included): null when the agent has no turns to go by. */
export interface EvalCostEstimate {
  costUsd: number | null;
  basis: string;
}

/** Eval runs: a revision run against cases, each graded (docs/evals.md). */
export class Evals extends Resource {
  /**
   * Starts a run of `body.revision` (default: the live one) against written `cases` or recorded
   * `fromSessions`; answers at once with its id. Not retried unless `maxRetries` says so: the service
   * takes no Idempotency-Key here and records the run before starting it (its 503 says the run may exist),
   * so a retry could start a second run and spend twice.
   */
  create(
    agentName: string,
    body: EvalRunBody,
    options: RequestOptions = {},
  ): Promise<{ id: string; cases: number; estimate: EvalCostEstimate }> {
    return this.transport.json(
      { method: 'POST', path: path`/agent/${agentName}/evals`, json: { ...body, estimate: false }, idempotent: false },
      { maxRetries: 0, ...options },
    );
  }

  /** What a run of this body would be, its cost estimated from the agent's recent turns; nothing is recorded or run. */
  estimate(agentName: string, body: EvalRunBody, options?: RequestOptions): Promise<{ cases: number; estimate: EvalCostEstimate }> {
    return this.transport.json(
      { method: 'POST', path: path`/agent/${agentName}/evals`, json: { ...body, estimate: true }, idempotent: true },
      options,
    );
  }

  /** The run with its summary and every case: status, verdicts, the candidate's transcript and the baseline. */
  retrieve(id: string, options?: RequestOptions): Promise<EvalRunView> {
    return this.transport.json({ method: 'GET', path: path`/evals/${id}`, idempotent: true }, options);
  }

  /**
   * The run's progress, streamed: every case that has ended, then each as it ends, the run's summary after
   * each change, and `end` last. A stream that breaks is opened again; a case is yielded once however often
   * the server sends it.
   */
  async *progress(id: string, options: { signal?: AbortSignal } = {}): AsyncGenerator<EvalProgress> {
    const seen = new Set<number>();
    for (let failures = 0; ;) {
      try {
        const response = await this.transport.raw(
          { method: 'GET', path: path`/evals/${id}`, accept: 'text/event-stream', idempotent: true },
          { signal: options.signal },
        );
        if (!response.body) throw new APIConnectionError('The progress stream has no body');
        for await (const frame of parseServerSentEvents(response.body)) {
          const data = JSON.parse(frame.data) as unknown;
          if (frame.event === 'case') {
            const evalCase = data as EvalRunView['cases'][number];
            if (seen.has(evalCase.id)) continue;
            seen.add(evalCase.id);
            failures = 0;
            yield { type: 'case', case: evalCase };
          } else if (frame.event === 'run' || frame.event === 'end') {
            yield { type: frame.event, run: data as Omit<EvalRunView, 'cases'> };
            if (frame.event === 'end') return;
          }
        }
        throw new APIConnectionError('The progress stream closed before the run ended');
      } catch (error) {
        if (options.signal?.aborted) throw new APIUserAbortError(undefined, { cause: options.signal.reason });
        const transient = error instanceof APIConnectionError || (error instanceof APIError && isRetryableStatus(error.status, true));
        if (!transient || ++failures > MAX_PROGRESS_RECONNECTS) throw error;
        await sleep(retryDelayMs(failures) ?? 1000, options.signal).catch(() => {
          throw new APIUserAbortError(undefined, { cause: options.signal?.reason });
        });
      }
    }
  }

  /** The agent's last 100 runs, newest first, without their cases. */
  list(agentName: string, options?: RequestOptions): Promise<EvalRunList> {
    return this.transport.json({ method: 'GET', path: path`/agent/${agentName}/evals`, idempotent: true }, options);
  }

  /** Cancels the run: its cases still running are aborted. Safe to repeat, and a no-op for a run that ended. */
  cancel(id: string, options?: RequestOptions): Promise<{ id: string }> {
    return this.transport.json({ method: 'POST', path: path`/evals/${id}/cancel`, idempotent: true }, options);
  }

  /**
   * Stores a set of written cases under `name` as its next version (1 for a new name): a run names it with
   * `set: 'name'` (its latest version) or `'name@3'`, and a promote's `requireEval` asks for a passing run
   * against it. Not retried (each call adds a version).
   */
  putSet(name: string, body: { cases: NonNullable<EvalRunBody['cases']> }, options: RequestOptions = {}): Promise<EvalSetSummary> {
    return this.transport.json(
      { method: 'PUT', path: path`/eval-set/${name}`, json: body, idempotent: false },
      { maxRetries: 0, ...options },
    );
  }

  /** A stored set with its cases (`items`): its latest version, or `query.version`. */
  getSet(name: string, query: { version?: number } = {}, options?: RequestOptions): Promise<EvalSetView> {
    return this.transport.json(
      { method: 'GET', path: path`/eval-set/${name}`, query: { version: query.version }, idempotent: true },
      options,
    );
  }

  /** Your stored sets, each at its latest version. */
  listSets(options?: RequestOptions): Promise<EvalSetList> {
    return this.transport.json({ method: 'GET', path: '/eval-set', idempotent: true }, options);
  }

  /**
   * Reads the run every `intervalMs` until it is no longer running, and resolves with it (completed or
   * cancelled). A read that fails for a passing reason (a dropped connection, a restarting API, a 5xx) is
   * simply tried again at the next interval, so a long run outlives them; past `timeoutMs` it throws
   * APITimeoutError.
   */
  async waitFor(id: string, options: EvalWaitOptions = {}): Promise<EvalRunView> {
    const interval = options.intervalMs ?? DEFAULT_INTERVAL_MS;
    const deadline = options.timeoutMs === undefined ? Infinity : Date.now() + options.timeoutMs;
    let failures = 0;
    for (;;) {
      let delay = interval;
      try {
        const run = await this.transport.json<EvalRunView>(
          { method: 'GET', path: path`/evals/${id}`, idempotent: true },
          { signal: options.signal, maxRetries: 0 },
        );
        failures = 0;
        if (run.status !== 'running') return run;
      } catch (error) {
        if (error instanceof APIUserAbortError) throw error;
        const transient = error instanceof APIConnectionError || (error instanceof APIError && isRetryableStatus(error.status, true));
        if (!transient) throw error;
        failures++;
        delay = Math.max(interval, retryDelayMs(Math.min(failures, 5), error instanceof APIError ? error.headers : undefined) ?? 5000);
      }
      const left = deadline - Date.now();
      if (left <= 0) throw new APITimeoutError(`The eval run ${id} did not end within ${options.timeoutMs} ms`);
      await sleep(Math.min(delay, left), options.signal).catch(() => {
        throw new APIUserAbortError(undefined, { cause: options.signal?.reason });
      });
    }
  }
}
