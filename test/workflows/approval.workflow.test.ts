// The approval workflow in the workflow tier: on a Temporal dev server of this file's own, with activities
// written here instead of PostgreSQL and channels. What is checked is how the workflow decides: one answer
// wins (a second and a choice outside the options are refused before they enter history), the
// expiry fires when no answer came, an answer taken while channels are still being sent to ends the wait
// and skips the rest, an answer the API stored and signalled is the outcome (and observed once), an expiry
// whose write finds an answer stored takes that answer, and an answer whose write failed opens the approval
// again; a team's approvers are asked, reminded and escalated to on the workflow's own timers. Durations
// are inputs: an approval that waits days in production waits a second here.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { WorkflowUpdateFailedError, WorkflowUpdateStage } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { Activities } from '../../activities/index.ts';
import type { RecordedApproval, StoredAnswer } from '../../activities/approvals.ts';
import { answeredSignal, answerUpdate, approvalWorkflow } from '../../workflows/approval.ts';
import { FAILURE } from '../../lib/workflow-safe/failures.ts';
import type { ApprovalWorkflowInput } from '../../lib/workflow-safe/approvals.ts';
import { approvalWorkflowId } from '../../lib/workflow-safe/workflow-ids.ts';
import { fastTurnSettings, until, workflowEnv, type WorkflowEnv } from '../helpers/harness/workflow-env.ts';

let env: WorkflowEnv;
beforeAll(async () => {
  env = await workflowEnv();
});
afterAll(async () => {
  await env?.teardown();
});

let approvals = 0;

interface Options {
  /** Channels the record says it goes over; each dispatch waits until `releaseDispatches` (or forever). */
  channels?: number;
  /** What the expiry's write finds: an answer stored meanwhile, or none. */
  storedAtExpiry?: StoredAnswer;
  /** The first answer's write waits until `releaseAnswer`. */
  holdFirstAnswer?: boolean;
  /** The first answer's write fails for good (not retried). */
  failFirstAnswerWrite?: boolean;
}

/** Activities of one approval: what the workflow asked for, in order, in `log`. */
function fakeApprovalActivities(options: Options = {}) {
  const log: string[] = [];
  // The first answer's write waits for the test: an activity, so the workflow takes other Updates meanwhile.
  let releaseAnswer: () => void = () => undefined;
  const answerReleased = new Promise<void>((resolve) => (releaseAnswer = resolve));
  let releaseDispatches: () => void = () => undefined;
  const dispatchesReleased = new Promise<void>((resolve) => (releaseDispatches = resolve));
  let answerWrites = 0;
  const activities: Partial<Activities> = {
    async recordApproval(input): Promise<RecordedApproval> {
      log.push('record');
      const channels = options.channels ?? 0;
      return {
        expiresAt: input.expiresAt,
        channels,
        positions: Array.from({ length: channels }, (_, i) => i),
        agentName: null,
        threaded: false,
      };
    },
    async publishWebhookEvent(input) {
      log.push(`event ${input.type}`);
      return { deliveries: [], settings: { retryScheduleMs: [], attemptTimeoutMs: 1_000 } };
    },
    async dispatchApproval(input) {
      log.push(`dispatch ${input.position}`);
      await dispatchesReleased;
      return { sent: true };
    },
    async failDispatch(input) {
      log.push(`dispatch failed ${input.position}`);
    },
    async skipUnsentDispatches() {
      log.push('skip unsent');
    },
    async recordAnswer(input) {
      answerWrites++;
      log.push(`answer ${input.choice} via ${input.via}`);
      if (options.holdFirstAnswer && answerWrites === 1) await answerReleased;
      if (options.failFirstAnswerWrite && answerWrites === 1)
        throw ApplicationFailure.nonRetryable('PostgreSQL refused the write', 'WriteRefused');
      return { answeredAt: '2026-11-29T12:00:00.000Z', choice: input.choice, note: input.note };
    },
    async recordExpiry() {
      log.push('expiry');
      return options.storedAtExpiry ?? { expiredAt: '2026-11-29T12:00:01.000Z' };
    },
    async observeAnswer() {
      log.push('observe');
    },
  };
  return { activities, log, releaseDispatches: () => releaseDispatches(), releaseAnswer: () => releaseAnswer() };
}

function input(expiresInMs: number): ApprovalWorkflowInput {
  const settings = fastTurnSettings().approvals;
  return {
    approvalId: `apr_fast_${process.pid}_${++approvals}`,
    userId: 'usr_fast',
    source: 'api',
    request: { question: 'Ship it?', options: ['yes', 'no'], expiresInMs },
    // A failed answer write is retried by Temporal; one attempt keeps the test on the workflow's own handling.
    settings: { ...settings, dispatchMaxAttempts: 1 },
  };
}

/** An approval expiring `expiresInMs` after its start, on `taskQueue`. */
function startApproval(taskQueue: string, expiresInMs: number) {
  const started = input(expiresInMs);
  return env.client.workflow.start(approvalWorkflow, { taskQueue, workflowId: approvalWorkflowId(started.approvalId), args: [started] });
}

/** The failure type an Update was refused with. */
async function refusal(update: Promise<unknown>): Promise<string | undefined> {
  const error = await update.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(WorkflowUpdateFailedError);
  return ((error as WorkflowUpdateFailedError).cause as { type?: string }).type;
}

describe('the approval workflow', () => {
  test('the first valid answer wins; a second answer and a choice outside the options are refused, neither entering history', async () => {
    const fake = fakeApprovalActivities({ holdFirstAnswer: true });
    await env.withWorker(fake.activities, async (taskQueue) => {
      const handle = await startApproval(taskQueue, 60_000);
      expect(await refusal(handle.executeUpdate(answerUpdate, { args: [{ choice: 'maybe', note: null, via: 'api' }] }))).toBe(
        FAILURE.approvalInvalidChoice,
      );
      const first = await handle.startUpdate(answerUpdate, {
        args: [{ choice: 'YES', note: 'go', via: 'link' }],
        waitForStage: WorkflowUpdateStage.ACCEPTED,
      });
      // Accepted, its write still under way: a second answer is refused by the workflow itself.
      expect(await refusal(handle.executeUpdate(answerUpdate, { args: [{ choice: 'no', note: null, via: 'api' }] }))).toBe(
        FAILURE.approvalAnswered,
      );
      fake.releaseAnswer();
      expect(await first.result()).toMatchObject({ status: 'answered', choice: 'yes', note: 'go' });
      expect(await handle.result()).toMatchObject({ status: 'answered', choice: 'yes' });
      // A refused Update leaves nothing in history: the one accepted is the only one there.
      const { events } = await handle.fetchHistory();
      expect(events!.filter((event) => event.workflowExecutionUpdateAcceptedEventAttributes)).toHaveLength(1);
      expect(fake.log).toEqual(['record', 'event approval.requested', 'answer yes via link', 'event approval.answered']);
    });
  });

  test('with no answer the expiry fires and is the outcome', async () => {
    const fake = fakeApprovalActivities();
    await env.withWorker(fake.activities, async (taskQueue) => {
      const handle = await startApproval(taskQueue, 800);
      expect(await handle.result()).toEqual({ status: 'expired', expiredAt: '2026-11-29T12:00:01.000Z' });
      expect(fake.log).toEqual(['record', 'event approval.requested', 'expiry', 'event approval.expired']);
    });
  });

  test('an answer taken while a channel is still being sent to ends the wait; the channels not reached are skipped', async () => {
    const fake = fakeApprovalActivities({ channels: 3 });
    await env.withWorker(fake.activities, async (taskQueue) => {
      const handle = await startApproval(taskQueue, 60_000);
      await until('the first channel to be sent to', () => fake.log.includes('dispatch 0'));
      await handle.executeUpdate(answerUpdate, { args: [{ choice: 'no', note: null, via: 'slack' }] });
      // The answer ended the wait with the first channel still in flight.
      await until('the answered event', () => fake.log.includes('event approval.answered'));
      expect(fake.log).toContain('skip unsent');
      fake.releaseDispatches();
      expect(await handle.result()).toMatchObject({ status: 'answered', choice: 'no' });
      // The next channels were never sent to: the loop stops at a decided approval.
      expect(fake.log.filter((line) => line.startsWith('dispatch'))).toEqual(['dispatch 0']);
    });
  });

  test('an answer the API stored and signalled is the outcome, taken once however often it comes, and observed at the end', async () => {
    const fake = fakeApprovalActivities();
    await env.withWorker(fake.activities, async (taskQueue) => {
      const handle = await startApproval(taskQueue, 60_000);
      const stored = {
        status: 'answered' as const,
        choice: 'yes',
        note: null,
        answeredAt: '2026-11-29T11:59:00.000Z',
        via: 'api' as const,
      };
      await handle.signal(answeredSignal, stored);
      // The same hand-over again (the API's sweep): taken once.
      await handle.signal(answeredSignal, stored);
      expect(await handle.result()).toEqual({ status: 'answered', choice: 'yes', note: null, answeredAt: '2026-11-29T11:59:00.000Z' });
      expect(fake.log).toEqual(['record', 'event approval.requested', 'event approval.answered', 'observe']);
    });
  });

  test('an expiry whose write finds an answer stored (never handed over) takes that answer as the outcome', async () => {
    const storedAtExpiry: StoredAnswer = { status: 'answered', choice: 'no', note: 'too late?', answeredAt: '2026-11-29T12:00:00.500Z' };
    const fake = fakeApprovalActivities({ storedAtExpiry });
    await env.withWorker(fake.activities, async (taskQueue) => {
      const handle = await startApproval(taskQueue, 500);
      expect(await handle.result()).toEqual({
        status: 'answered',
        choice: 'no',
        note: 'too late?',
        answeredAt: '2026-11-29T12:00:00.500Z',
      });
      expect(fake.log).toEqual(['record', 'event approval.requested', 'expiry', 'event approval.answered']);
    });
  });

  test('an answer whose write failed is not the outcome: the approval is open again, and the next answer wins', async () => {
    const fake = fakeApprovalActivities({ failFirstAnswerWrite: true });
    await env.withWorker(fake.activities, async (taskQueue) => {
      const handle = await startApproval(taskQueue, 60_000);
      await expect(handle.executeUpdate(answerUpdate, { args: [{ choice: 'yes', note: null, via: 'api' }] })).rejects.toBeInstanceOf(
        WorkflowUpdateFailedError,
      );
      const answered = await handle.executeUpdate(answerUpdate, { args: [{ choice: 'no', note: null, via: 'link' }] });
      expect(answered).toMatchObject({ status: 'answered', choice: 'no' });
      expect(await handle.result()).toMatchObject({ status: 'answered', choice: 'no' });
      expect(fake.log.filter((line) => line.startsWith('answer'))).toEqual(['answer yes via api', 'answer no via link']);
    });
  });
});

describe("a team's approval: its approvers, reminders and escalation on the workflow's timers", () => {
  test('approvers are asked at once; a reminder asks those still waiting; the escalation adds its approver after its time; the decision stops both', async () => {
    const fake = fakeApprovalActivities();
    const startedAt = Date.now();
    const at: Record<string, number> = {};
    const activities: Partial<Activities> = {
      ...fake.activities,
      async recordApproval(recordInput): Promise<RecordedApproval> {
        fake.log.push('record');
        return {
          expiresAt: recordInput.expiresAt,
          channels: 0,
          positions: [],
          agentName: null,
          threaded: false,
          seatDispatches: [
            { position: 0, provider: 'email' },
            { position: 1, provider: 'slack' },
          ],
        };
      },
      async dispatchToApprover(dispatch) {
        fake.log.push(`ask ${dispatch.position} ${dispatch.provider}`);
        at[`ask ${dispatch.position}`] ??= Date.now() - startedAt;
        return { sent: true };
      },
      async remindApprovers() {
        fake.log.push('remind');
        at.remind ??= Date.now() - startedAt;
        // Seat 0 has voted meanwhile: only seat 1 is asked again.
        return [{ position: 1, provider: 'slack' }];
      },
      async escalateApproval(step) {
        fake.log.push(`escalate ${step.step} to ${step.to.join(',')}`);
        at.escalate = Date.now() - startedAt;
        return { added: ['boss'], dispatches: [{ position: 2, provider: 'telegram' }], channels: [] };
      },
      async skipUnsentApproverDispatches() {
        fake.log.push('skip unsent approvers');
      },
    };
    const team = {
      approvers: ['ann', 'bob'],
      quorum: 2,
      remind: { everyMs: 700 },
      escalate: [{ afterMs: 1_000, to: ['boss'] }],
    };
    await env.withWorker(activities, async (taskQueue) => {
      const started = input(30_000);
      const handle = await env.client.workflow.start(approvalWorkflow, {
        taskQueue,
        workflowId: approvalWorkflowId(started.approvalId),
        args: [{ ...started, request: { ...started.request, team } }],
      });
      await until('the escalated approver to be asked', async () => fake.log.includes('ask 2 telegram'), 10_000);
      await handle.signal(answeredSignal, {
        status: 'answered',
        choice: 'yes',
        note: null,
        answeredAt: '2026-11-29T12:00:00.000Z',
        via: 'link',
        approver: 'boss',
        tally: { yes: 2, no: 0 },
      });
      expect(await handle.result()).toMatchObject({ status: 'answered', choice: 'yes' });
    });
    // Both asked at once; the reminder (700 ms) asks bob again; the escalation (1 s) asks boss; then the
    // decision, the unsent skipped. Activities scheduled in one workflow task may start in either order.
    const order = (line: string) => fake.log.indexOf(line);
    // Reminders every 700 ms: a slow machine may fit a second one (1.4 s) before the decision; each asks bob again.
    const reminders = fake.log.filter((line) => line === 'remind').length;
    expect(reminders).toBeGreaterThanOrEqual(1);
    expect([...fake.log].sort()).toEqual(
      [
        'record',
        'event approval.requested',
        'ask 0 email',
        'ask 1 slack',
        ...Array.from({ length: reminders }, () => ['remind', 'ask 1 slack']).flat(),
        'escalate 0 to boss',
        'event approval.escalated',
        'ask 2 telegram',
        'event approval.answered',
        'skip unsent approvers',
        'observe',
      ].sort(),
    );
    expect(Math.max(order('ask 0 email'), order('ask 1 slack'))).toBeLessThan(order('remind'));
    expect(fake.log.lastIndexOf('ask 1 slack')).toBeGreaterThan(order('remind'));
    expect(order('remind')).toBeLessThan(order('escalate 0 to boss'));
    expect(order('escalate 0 to boss')).toBeLessThan(Math.min(order('event approval.escalated'), order('ask 2 telegram')));
    // Nothing after the decision but its ending: no further reminder or escalation.
    expect(fake.log.slice(order('event approval.answered'))).toEqual(['event approval.answered', 'skip unsent approvers', 'observe']);
    // Each on its own timer, from the approval's creation: not before its time.
    expect(at.remind).toBeGreaterThanOrEqual(700);
    expect(at.escalate).toBeGreaterThanOrEqual(1_000);
  });
});
