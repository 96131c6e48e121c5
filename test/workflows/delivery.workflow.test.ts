// The webhook delivery workflow in the workflow tier, with the attempt activity written here: attempts
// follow the retry schedule (hours in production, milliseconds here: the schedule is an input), one
// attempt per activity, never retried by Temporal; a delivered attempt ends it, a 410 ends it failed and
// disabled, the last failed attempt ends it failed (the Web UI's status filter finds it), an attempt
// whose worker died counts as failed, and a delivery cancelled meanwhile ends without another attempt.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { WorkflowFailedError } from '@temporalio/client';
import type { Activities } from '../../activities/index.ts';
import type { AttemptOutcome } from '../../core/delivery-types.ts';
import { deliveryWorkflow } from '../../workflows/delivery.ts';
import { deliveryWorkflowId } from '../../lib/workflow-safe/workflow-ids.ts';
import { FAILURE } from '../../lib/workflow-safe/failures.ts';
import { workflowEnv, type WorkflowEnv } from '../helpers/harness/workflow-env.ts';

let env: WorkflowEnv;
beforeAll(async () => {
  env = await workflowEnv();
});
afterAll(async () => {
  await env?.teardown();
});

let deliveries = 0;
/** Three waits between four attempts: as production's hours, scaled to a test. */
const SCHEDULE = [100, 200, 300];

/** The attempt activity answering `outcomes` in turn (an Error is thrown: its worker died); what it was asked, in `attempts`. */
function fakeDelivery(outcomes: Array<AttemptOutcome | Error>) {
  const attempts: Array<{ attempt: number; final: boolean; at: number }> = [];
  const finished: string[] = [];
  const started = performance.now();
  const activities: Partial<Activities> = {
    async attemptDelivery(input) {
      attempts.push({ attempt: input.attempt, final: input.final, at: performance.now() - started });
      const outcome = outcomes[input.attempt - 1] ?? { result: 'retry', detail: 'HTTP 500' };
      if (outcome instanceof Error) throw outcome;
      return outcome;
    },
    async finishDelivery(input) {
      finished.push(input.status);
    },
  };
  return { activities, attempts, finished };
}

async function deliver(activities: Partial<Activities>) {
  return env.withWorker(activities, async (taskQueue) => {
    const deliveryId = `dlv_fast_${process.pid}_${++deliveries}`;
    const handle = await env.client.workflow.start(deliveryWorkflow, {
      taskQueue,
      workflowId: deliveryWorkflowId(deliveryId),
      args: [
        {
          deliveryId,
          subscriptionId: 'whs_fast',
          type: 'session.completed',
          settings: { retryScheduleMs: SCHEDULE, attemptTimeoutMs: 1_000 },
        },
      ],
    });
    return handle.result().then(
      (result) => ({ result, failure: undefined }),
      (error: unknown) => ({ result: undefined, failure: error }),
    );
  });
}

const failureType = (error: unknown) => ((error as WorkflowFailedError).cause as { type?: string }).type;

describe('the delivery workflow', () => {
  test('failed attempts wait out the schedule between them; the first 2xx ends it delivered', async () => {
    const fake = fakeDelivery([
      { result: 'retry', detail: 'HTTP 503' },
      { result: 'retry', detail: 'connect ECONNREFUSED' },
      { result: 'delivered', detail: 'HTTP 200' },
    ]);
    const { result } = await deliver(fake.activities);
    expect(result).toEqual({ status: 'delivered', attempts: 3 });
    expect(fake.attempts.map(({ attempt, final }) => ({ attempt, final }))).toEqual([
      { attempt: 1, final: false },
      { attempt: 2, final: false },
      { attempt: 3, final: false },
    ]);
    // Each wait at least the schedule's entry: a durable timer, not a retry policy's backoff.
    expect(fake.attempts[1]!.at - fake.attempts[0]!.at).toBeGreaterThanOrEqual(SCHEDULE[0]!);
    expect(fake.attempts[2]!.at - fake.attempts[1]!.at).toBeGreaterThanOrEqual(SCHEDULE[1]!);
  });

  test('every attempt failing ends it failed after the last, marked final; nothing more is sent', async () => {
    const fake = fakeDelivery([]);
    const { failure } = await deliver(fake.activities);
    expect(failure).toBeInstanceOf(WorkflowFailedError);
    expect(failureType(failure)).toBe(FAILURE.webhookUndelivered);
    expect(fake.attempts.map(({ final }) => final)).toEqual([false, false, false, true]);
  });

  test('410 Gone ends it at once, failed as gone: no attempt after it', async () => {
    const fake = fakeDelivery([
      { result: 'retry', detail: 'HTTP 500' },
      { result: 'gone', detail: 'HTTP 410' },
    ]);
    const { failure } = await deliver(fake.activities);
    expect(failureType(failure)).toBe(FAILURE.webhookGone);
    expect(fake.attempts).toHaveLength(2);
  });

  test('an attempt whose activity failed (its worker died) counts as a failed attempt, not retried by Temporal; the last one is recorded failed', async () => {
    const fake = fakeDelivery([
      new Error('worker lost'),
      { result: 'retry', detail: 'HTTP 502' },
      new Error('worker lost'),
      new Error('worker lost'),
    ]);
    const { failure } = await deliver(fake.activities);
    expect(failureType(failure)).toBe(FAILURE.webhookUndelivered);
    // One call per attempt: the activity's own retry policy allows one.
    expect(fake.attempts.map(({ attempt }) => attempt)).toEqual([1, 2, 3, 4]);
    expect(fake.finished).toEqual(['failed']);
  });

  test('a delivery cancelled meanwhile (its subscription removed) ends without another attempt', async () => {
    const fake = fakeDelivery([
      { result: 'retry', detail: 'HTTP 500' },
      { result: 'cancelled', detail: 'the subscription is gone' },
    ]);
    const { result } = await deliver(fake.activities);
    expect(result).toEqual({ status: 'cancelled', attempts: 1 });
    expect(fake.attempts).toHaveLength(2);
  });
});
