// An eval run in the workflow tier: on a Temporal dev server of this file's own, with activities written
// here instead of sessions and a model. What is checked is how the run walks its cases: at most
// `concurrency` at a time, a case whose workflow fails for good ends as an error and the run goes on to
// its end, and a cancelled run cancels the case still running and ends cancelled.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ApplicationFailure } from '@temporalio/common';
import { Context } from '@temporalio/activity';
import type { Activities } from '../../activities/index.ts';
import { evalRunWorkflow } from '../../workflows/eval-run.ts';
import { evalRunWorkflowId } from '../../lib/workflow-safe/workflow-ids.ts';
import { until, workflowEnv, type WorkflowEnv } from '../helpers/harness/workflow-env.ts';

let env: WorkflowEnv;
beforeAll(async () => {
  env = await workflowEnv();
});
afterAll(async () => {
  await env?.teardown();
});

let runs = 0;
const SUMMARY = { cases: 0, passed: 0, failed: 0, errors: 0, cancelled: 0, pending: 0, costUsd: 0 };

function fakeEvalActivities(runCase: (position: number) => Promise<'passed'>) {
  const log: string[] = [];
  let running = 0;
  let mostAtOnce = 0;
  const activities: Partial<Activities> = {
    // The case runs inside its start here: what the run sees is the same (a case ended, or failed for good).
    async startEvalCase(input) {
      running += 1;
      mostAtOnce = Math.max(mostAtOnce, running);
      try {
        return { ended: true, status: await runCase(input.position) };
      } finally {
        running -= 1;
      }
    },
    async checkEvalCase() {
      return { ended: false };
    },
    async cancelEvalCase(input) {
      log.push(`cancel ${input.position}`);
    },
    async failEvalCase(input) {
      log.push(`error ${input.position}: ${input.error}`);
    },
    async endEvalRun(input) {
      log.push(input.cancelled ? 'end cancelled' : 'end completed');
      return { userId: 'usr_x', agentId: 'agt_x', agentName: 'x', revision: 1, summary: SUMMARY };
    },
    async publishWebhookEvent() {
      return { deliveries: [], settings: { retryScheduleMs: [], attemptTimeoutMs: 1000 } };
    },
  };
  return { activities, log, mostAtOnce: () => mostAtOnce };
}

const input = (cases: number, concurrency: number) => ({
  runId: `evl_test${++runs}`,
  userId: 'usr_x',
  agentId: 'agt_x',
  cases,
  concurrency,
});

describe('an eval run', () => {
  test('runs its cases at most `concurrency` at a time; a case that fails for good is an error, and the run completes', async () => {
    const fake = fakeEvalActivities(async (position) => {
      await new Promise((resolve) => setTimeout(resolve, 100));
      if (position === 1) throw ApplicationFailure.nonRetryable('the agent was deleted');
      return 'passed';
    });
    const result = await env.withWorker(fake.activities, (taskQueue) =>
      env.client.workflow.execute(evalRunWorkflow, { taskQueue, workflowId: evalRunWorkflowId(`c${runs}`), args: [input(5, 2)] }),
    );
    expect(result).toEqual({ status: 'completed' });
    expect(fake.log).toEqual(['error 1: the agent was deleted', 'end completed']);
    expect(fake.mostAtOnce()).toBe(2);
  });

  test('a cancelled run cancels the case that runs, starts no other, and ends cancelled', async () => {
    const started: number[] = [];
    const fake = fakeEvalActivities(async (position) => {
      started.push(position);
      const context = Context.current();
      const beat = setInterval(() => context.heartbeat(), 20);
      try {
        await context.cancelled;
      } finally {
        clearInterval(beat);
      }
      return 'passed';
    });
    const result = await env.withWorker(fake.activities, async (taskQueue) => {
      const handle = await env.client.workflow.start(evalRunWorkflow, {
        taskQueue,
        workflowId: evalRunWorkflowId(`x${runs}`),
        args: [input(3, 1)],
      });
      await until('the first case runs', () => started.length === 1);
      await handle.cancel();
      return handle.result();
    });
    expect(result).toEqual({ status: 'cancelled' });
    expect(started).toEqual([0]);
    expect(fake.log).toEqual(['cancel 0', 'end cancelled']);
  });

  test('a case whose turn completed under a rubric goes to its judge, retried while the judge’s provider fails', async () => {
    const fake = fakeEvalActivities(async () => 'passed');
    let judged = 0;
    const activities: Partial<Activities> = {
      ...fake.activities,
      async startEvalCase() {
        return { ended: false };
      },
      async checkEvalCase(check) {
        fake.log.push(`check ${check.position}`);
        return { ended: false, judge: true };
      },
      async judgeEvalCase(judge) {
        judged += 1;
        if (judged === 1) throw ApplicationFailure.retryable('the judge’s provider is overloaded');
        fake.log.push(`judged ${judge.position}`);
        return { ended: true, status: 'passed' };
      },
    };
    const result = await env.withWorker(activities, (taskQueue) =>
      env.client.workflow.execute(evalRunWorkflow, { taskQueue, workflowId: evalRunWorkflowId(`j${runs}`), args: [input(1, 1)] }),
    );
    expect(result).toEqual({ status: 'completed' });
    expect(judged).toBe(2);
    expect(fake.log).toEqual(['check 0', 'judged 0', 'end completed']);
  });
});
