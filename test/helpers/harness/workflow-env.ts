// The fast tier for workflow logic (test/workflows): a Temporal dev server of this file's own
// (TestWorkflowEnvironment.createLocal, run from the CLI the project already builds) and a worker on
// the one workflow bundle of the test run, with activities the test writes. No PostgreSQL, no API, no
// model: a workflow's behaviour (queueing, interrupts, steering, retries of a structured reply, a
// client tool's timeout) is tested in seconds, against the real engine rather than a mock of it.
import { inject } from 'vitest';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { installQuietRuntime } from './quiet-runtime.ts';
import type { Client } from '@temporalio/client';
import type { Activities } from '../../../activities/index.ts';
import { AgentIdKey, KindKey, SessionIdKey, UserIdKey } from '../../../lib/workflow-safe/search-attributes.ts';
import { converterPaths } from '../../../workers/workflow-code.ts';
import type { TurnSettings } from '../../../lib/workflow-safe/turn-settings.ts';

export interface WorkflowEnv {
  client: Client;
  /**
   * Runs `body` with a worker on a task queue of its own, whose activities are `activities` (any
   * activity the workflow calls that is not given fails the test's run with a clear error).
   */
  withWorker<T>(activities: Partial<Activities>, body: (taskQueue: string) => Promise<T>): Promise<T>;
  teardown(): Promise<void>;
}

let queues = 0;

export async function workflowEnv(): Promise<WorkflowEnv> {
  installQuietRuntime();
  const env = await TestWorkflowEnvironment.createLocal({
    server: {
      executable: { type: 'existing-path', path: inject('temporalCliPath') },
      // The workflows write these on every run they start; the namespace must know them.
      searchAttributes: [SessionIdKey, AgentIdKey, UserIdKey, KindKey],
      log: { format: 'pretty', level: 'error' },
    },
    // The service's converters, as the worker loads them (no payload encryption here).
    client: { dataConverter: converterPaths() },
  });
  return {
    client: env.client,
    async withWorker(activities, body) {
      const taskQueue = `fast-${process.pid}-${++queues}`;
      const worker = await Worker.create({
        connection: env.nativeConnection,
        namespace: env.namespace ?? 'default',
        taskQueue,
        workflowBundle: { codePath: inject('workflowBundlePath') },
        activities,
        dataConverter: converterPaths(),
        // A cancelled activity learns of it from a heartbeat: sent at once, not throttled to seconds.
        maxHeartbeatThrottleInterval: '50 milliseconds',
        defaultHeartbeatThrottleInterval: '50 milliseconds',
      });
      return worker.runUntil(body(taskQueue));
    },
    teardown: () => env.teardown(),
  };
}

/** Settings for a workflow under test: short waits, so a test of an idle session or a timeout takes a second. */
export function fastTurnSettings(overrides: Partial<TurnSettings> = {}): TurnSettings {
  return {
    stepHeartbeatTimeoutMs: 2_000,
    stepMaxAttempts: 2,
    stepRetryInitialIntervalMs: 100,
    maxSteps: 4,
    sessionIdleMs: 1_000,
    clientToolTimeoutMs: 5_000,
    approvals: { defaultExpiryMs: 60_000, maxExpiryMs: 120_000, dispatchMaxAttempts: 1, dispatchRetryInitialMs: 100 },
    ...overrides,
  };
}

/** Resolves when `check` holds, looking every 20 ms; fails with `what` after `timeoutMs`. */
export async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  for (let waited = 0; !(await check()); waited += 20) {
    if (waited > timeoutMs) throw new Error(`still waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
