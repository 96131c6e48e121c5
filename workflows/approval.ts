// One approval (`approval:<id>`): record it, send it over the asking agent's channels in declared
// order, then wait for the first valid answer (an Update) or the expiry (a timer), whichever comes
// first. The answer Update's validator rejects a second answer, an answer after expiry and a
// choice outside the options, so a rejected answer never enters history and exactly one wins.
// The workflow is the one place an answer is decided: it is written to PostgreSQL (where the API and
// every reader see it as taken) only once Temporal has stored the Update's acceptance.
// Started as an abandoned child of a turn (or a workflow run, or by the API), it outlives them all.
import {
  ActivityFailure,
  allHandlersFinished,
  condition,
  defineQuery,
  defineSignal,
  defineUpdate,
  log,
  ParentClosePolicy,
  deprecatePatch,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  startChild,
  WorkflowIdReusePolicy,
} from '@temporalio/workflow';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import { FAILURE, nonRetryable } from '../lib/workflow-safe/failures.ts';
import { approvalNoticeWorkflow, outcomeNotice } from './approval-notice.ts';
import type { Activities } from '../activities/index.ts';
import {
  ANSWERED_SIGNAL,
  matchOption,
  type ApprovalAnswer,
  type ApprovalOutcome,
  type ApprovalWorkflowInput,
} from '../lib/workflow-safe/approvals.ts';
import type { RecordedApproval } from '../activities/approvals.ts';
import { publishEvent } from './publish.ts';
import { TEAM_LIMITS } from '../contract/approvals.ts';
import { PATCHES_OF_0_1_0 } from './release-patches.ts';
import { approvalNoticeWorkflowId } from '../lib/workflow-safe/workflow-ids.ts';
import { searchAttributes } from '../lib/workflow-safe/search-attributes.ts';
import { readableMetadata } from '../lib/workflow-safe/readable-metadata.ts';

export type AnsweredOutcome = Extract<ApprovalOutcome, { status: 'answered' }>;

export const answerUpdate = defineUpdate<AnsweredOutcome, [ApprovalAnswer]>('answer');
/**
 * An answer the API took and stored itself (the first one, decided by PostgreSQL; the session's event
 * written with it): a signal, which the engine takes with no worker running. The workflow takes it as
 * its outcome unless its own expiry came first (which then finds this answer stored and takes it too).
 */
export const answeredSignal = defineSignal<[StoredAnswerSignal]>(ANSWERED_SIGNAL);
export type StoredAnswerSignal = AnsweredOutcome & {
  via: ApprovalAnswer['via'];
  /** An approval a team answered: the approver who decided it, and the votes per option then. */
  approver?: string;
  tally?: Record<string, number>;
};
/**
 * The record as written. An API from before the API wrote records itself waited on this Update to answer
 * POST /approval; it stays for such a process during a rollout.
 */
export const recordedUpdate = defineUpdate<RecordedApproval>('recorded');
/** Approvers added by the API (a delegation): their addresses to send to. */
export type SeatDispatchRef = { position: number; provider: 'email' | 'slack' | 'telegram' | 'webhook' };
/** Approver dispatches under way at once. */
const SEATS_SENT_AT_ONCE = 4;
export const seatsAddedSignal = defineSignal<[SeatDispatchRef[]]>('seatsAdded');
export const approvalStatusQuery = defineQuery<'unanswered' | 'answered' | 'expired'>('status');

export async function approvalWorkflow(input: ApprovalWorkflowInput): Promise<ApprovalOutcome> {
  const { approvalId, request, settings } = input;
  // The record's writes are idempotent and must happen: retried for as long as PostgreSQL is away.
  const book = proxyLocalActivities<Activities>({ startToCloseTimeout: '30 seconds', retry: { maximumInterval: '1 minute' } });
  // The answer's write is an activity, not a local one: its command is stored with the Update's
  // acceptance, in one write, so it runs only once the acceptance is durable. A local activity runs
  // inside the workflow task, before the server has stored anything of it; when the server then
  // refused the task (UnhandledCommand: an event came in while it ran, and the task also completed
  // the workflow), it dropped the Update (the API saw an error) while the answer stood in PostgreSQL
  // as taken, so nobody answered again and the asking turn waited forever.
  // Each is one or two statements: 5 s, not 30, is how long a worker that dies with one in hand (polled,
  // before workers/worker-life.ts recorded it) holds the approval and the turn waiting on it (a soak's
  // history: 30 s). A slow database only retries it, and both writes are idempotent.
  const afterAcceptance = proxyActivities<Activities>({
    startToCloseTimeout: '5 seconds',
    retry: { initialInterval: '200 milliseconds', maximumInterval: '1 minute' },
  });
  const channels = proxyActivities<Activities>({
    startToCloseTimeout: '2 minutes',
    retry: {
      initialInterval: settings.dispatchRetryInitialMs,
      backoffCoefficient: 2,
      maximumAttempts: settings.dispatchMaxAttempts,
      nonRetryableErrorTypes: [FAILURE.channelPermanent],
    },
  });

  // Workflow time is deterministic, and so is the input: a replay computes the same expiry.
  const createdAt = input.createdAt !== undefined ? Date.parse(input.createdAt) : Date.now();
  const expiresAt = createdAt + request.expiresInMs;
  let decided: 'answered' | 'expired' | undefined;
  let outcome: ApprovalOutcome | undefined;
  let answeredVia: string | null = null;
  const settledOutcome = (): ApprovalOutcome | undefined => outcome;
  // Set once the record is written; handlers that arrive earlier wait for it.
  const record: { written?: RecordedApproval } = {};

  setHandler(approvalStatusQuery, () => (outcome ? outcome.status : 'unanswered'));
  setHandler(recordedUpdate, async () => {
    await condition(() => record.written !== undefined);
    // Field by field: a record written by an earlier version carried answer links, which must not
    // enter history again as this Update's result.
    const { expiresAt, channels, agentName, threaded } = record.written!;
    return { expiresAt, channels, agentName, threaded };
  });
  /** The answer came stored, by signal: the worker still counts it and records its span. */
  let storedBySignal = false;
  /** Of an approval a team answered: who decided it, and the votes then (its webhook event carries them). */
  let decidedBy: { approver?: string; tally?: Record<string, number> } = {};
  setHandler(answeredSignal, (stored) => {
    // An answer taken through the Update (one the sweep handed over), or the expiry, decided first: the
    // expiry's write found this answer stored, so either way the outcome is the same answer.
    if (decided !== undefined) return;
    decided = 'answered';
    storedBySignal = true;
    answeredVia = stored.via;
    decidedBy = {
      ...(stored.approver !== undefined && { approver: stored.approver }),
      ...(stored.tally !== undefined && { tally: stored.tally }),
    };
    outcome = { status: 'answered', choice: stored.choice, note: stored.note, answeredAt: stored.answeredAt };
  });
  setHandler(
    answerUpdate,
    async (answer) => {
      // Decided before the first await, so an answer arriving meanwhile is rejected by the validator.
      decided = 'answered';
      answeredVia = answer.via;
      const choice = matchOption(request.options, answer.choice)!;
      await condition(() => record.written !== undefined);
      deprecatePatch(PATCHES_OF_0_1_0.answerAfterAcceptance);
      let stored: Awaited<ReturnType<typeof afterAcceptance.recordAnswer>>;
      try {
        stored = await afterAcceptance.recordAnswer({ approvalId, choice, note: answer.note, via: answer.via });
      } catch (error) {
        // Not recorded: the approval is open again for the next answer (and for its expiry).
        if (decided === 'answered') decided = undefined;
        throw error;
      }
      const answered: AnsweredOutcome = { status: 'answered', choice: stored.choice, note: stored.note, answeredAt: stored.answeredAt };
      outcome = answered;
      return answered;
    },
    {
      validator: (answer) => {
        if (decided === 'answered') throw nonRetryable(FAILURE.approvalAnswered, 'This approval is already answered');
        if (decided === 'expired') throw nonRetryable(FAILURE.approvalExpired, 'This approval has expired');
        if (matchOption(request.options, answer.choice) === undefined)
          throw nonRetryable(FAILURE.approvalInvalidChoice, `Choose one of ${request.options.map((option) => `"${option}"`).join(', ')}`);
      },
    },
  );

  const recorded = await book.recordApproval({
    ...input,
    createdAt: new Date(createdAt).toISOString(),
    expiresAt: new Date(expiresAt).toISOString(),
  });
  record.written = recorded;
  const base = { approvalId, sessionId: input.sessionId ?? null, agentId: input.agentId ?? null };
  await publishEvent(
    input.userId,
    {
      type: 'approval.requested',
      // No links: webhook payloads are readable with `read` (the delivery log), and a link answers.
      data: {
        ...base,
        question: request.question,
        options: request.options,
        expiresAt: recorded.expiresAt,
        ...(request.connect && { connect: request.connect }),
      },
    },
    `approval.requested:${approvalId}`,
  );

  // Channels go one after another in declared order; a failed one is recorded and the next goes.
  // Answers are taken meanwhile: a quick answer ends the wait without waiting for slow channels.
  // A record written before requests could narrow the channels (replayed from history) has no
  // positions: it went over all of them, so the replay schedules what it scheduled then.
  const channelCount = recorded.channels;
  const positions = recorded.positions ?? Array.from({ length: channelCount }, (_, position) => position);
  /** The user's channels asked: those recorded, and those an escalation that adds "me" asks later. */
  let channelsAsked = channelCount > 0;
  /** Whether the outcome is noted in chat threads: the recorded channels', or an escalation's (threads found when noted). */
  let threaded = recorded.threaded;
  const dispatchChannels = async (these: readonly number[]) => {
    for (const position of these) {
      if (decided) break;
      try {
        await channels.dispatchApproval({ approvalId, position, maxAttempts: settings.dispatchMaxAttempts });
      } catch (error) {
        const reason = error instanceof ActivityFailure ? (error.cause?.message ?? error.message) : String(error);
        log.warn('channel dispatch failed', { approvalId, position, error: reason });
        await book.failDispatch({ approvalId, position });
      }
    }
  };
  void dispatchChannels(positions);

  // An approval a team answers: each approver at each of their addresses, in seat order, alongside the
  // channels; then those an escalation, a delegation or a reminder adds. Read from the record's result,
  // so a history from before approvers replays as it ran (it has no team, and none of this runs).
  const team = request.team;
  const seatQueue: SeatDispatchRef[] = [...(recorded.seatDispatches ?? [])];
  /** Whether some approver was asked in a chat (Slack, Telegram): the outcome is noted in those messages' threads too. */
  let approverChats = seatQueue.some(isChat);
  const seatsDispatched = team !== undefined || seatQueue.length > 0;
  if (seatsDispatched) {
    setHandler(seatsAddedSignal, (added) => enqueueSeats(added));
    // A few at once: one address that hangs (an SMTP server that never answers) holds up no other approver.
    let sending = 0;
    const send = async ({ position, provider }: SeatDispatchRef) => {
      try {
        await channels.dispatchToApprover({ approvalId, position, provider, maxAttempts: settings.dispatchMaxAttempts });
      } catch (error) {
        const reason = error instanceof ActivityFailure ? (error.cause?.message ?? error.message) : String(error);
        log.warn('approver dispatch failed', { approvalId, position, provider, error: reason });
        await book.failApproverDispatch({ approvalId, position, provider });
      } finally {
        sending -= 1;
      }
    };
    void (async () => {
      while (!decided) {
        await condition(() => decided !== undefined || (seatQueue.length > 0 && sending < SEATS_SENT_AT_ONCE));
        if (decided) break;
        sending += 1;
        void send(seatQueue.shift()!);
      }
    })();
  }
  /** Queues dispatches not queued already (a reminder meeting an escalation asks each address once). */
  function enqueueSeats(added: readonly SeatDispatchRef[]): void {
    if (added.some(isChat)) approverChats = true;
    for (const item of added)
      if (!seatQueue.some((queued) => queued.position === item.position && queued.provider === item.provider)) seatQueue.push(item);
  }
  // Reminders and escalations, on workflow timers from the approval's creation, until it is decided or expires.
  // Awaited before the workflow ends: an escalation's webhook event recorded but not yet started would
  // otherwise be left to the housekeeping's pass minutes later.
  let timers: Promise<void> = Promise.resolve();
  if (team?.remind || team?.escalate) {
    const steps = team.escalate ?? [];
    timers = (async () => {
      let step = 0;
      let reminders = 0;
      let reminder = team.remind ? createdAt + team.remind.everyMs : Infinity;
      while (!decided) {
        const escalation = step < steps.length ? createdAt + steps[step]!.afterMs : Infinity;
        const at = Math.min(reminder, escalation);
        if (at >= expiresAt) break;
        if (await condition(() => decided !== undefined, Math.max(at - Date.now(), 1))) break;
        if (at === escalation) {
          const escalated = await book.escalateApproval({
            approvalId,
            step,
            to: steps[step]!.to,
            ...(input.channels ? { channels: input.channels } : {}),
          });
          const { added, dispatches } = escalated;
          // "me" added: the user's own channels are asked now (absent from results recorded before this).
          if (escalated.channels && escalated.channels.length > 0) {
            channelsAsked = true;
            threaded = true;
            void dispatchChannels(escalated.channels);
          }
          if (added.length > 0) {
            enqueueSeats(dispatches);
            await publishEvent(
              input.userId,
              { type: 'approval.escalated', data: { ...base, step, approvers: added } },
              `approval.escalated:${approvalId}:${step}`,
            );
          }
          step += 1;
        } else {
          enqueueSeats(await book.remindApprovers({ approvalId }));
          reminders += 1;
          // A bounded history: past TEAM_LIMITS.reminders, no more reminders (escalations still come).
          reminder = reminders < TEAM_LIMITS.reminders ? reminder + team.remind!.everyMs : Infinity;
        }
      }
    })();
  }

  // Until an answer is recorded or the time is up. An answer whose write failed opens the wait again.
  // An answer may have been recorded already (it can come as soon as the record is written).
  while (settledOutcome() === undefined) {
    await condition(() => decided !== undefined, Math.max(expiresAt - Date.now(), 1));
    if (decided === undefined) {
      decided = 'expired';
      const expiry = await book.recordExpiry({ approvalId });
      // An answer stored without this workflow taking it (an earlier version could leave one) is the
      // outcome: whoever answered was told it was taken. Results recorded before carry no status.
      if ('status' in expiry) {
        decided = 'answered';
        const { choice, note, answeredAt } = expiry;
        outcome = { status: 'answered', choice, note, answeredAt };
      } else {
        outcome = { status: 'expired', expiredAt: expiry.expiredAt };
      }
      break;
    }
    await condition(() => outcome !== undefined || decided === undefined);
  }
  // Read through a function: TypeScript cannot see that the handler set it.
  const settled = settledOutcome()!;
  if (settled.status === 'answered') {
    const { choice, note, answeredAt } = settled;
    await publishEvent(
      input.userId,
      { type: 'approval.answered', data: { ...base, choice, note, answeredAt, ...decidedBy } },
      `approval.answered:${approvalId}`,
    );
  } else {
    await publishEvent(
      input.userId,
      { type: 'approval.expired', data: { ...base, expiredAt: settled.expiredAt } },
      `approval.expired:${approvalId}`,
    );
  }
  if (channelsAsked) await book.skipUnsentDispatches({ approvalId });
  if (seatsDispatched) await book.skipUnsentApproverDispatches({ approvalId });
  await timers;
  if (threaded || approverChats) await startNotice(input.userId, approvalId, outcomeNotice(outcome!, answeredVia), approverChats);
  // Last: until then the answer stays pending a hand-over (the API's sweep signals again, which this
  // workflow ignores), so the housekeeping's reconcile pass never takes a running workflow for stranded.
  if (storedBySignal) await afterAcceptance.observeAnswer({ approvalId });
  await condition(allHandlersFinished);
  return outcome!;
}

const isChat = (dispatch: SeatDispatchRef): boolean => dispatch.provider === 'slack' || dispatch.provider === 'telegram';

/**
 * The outcome, noted in the question's chat threads by a workflow of its own, so nothing here waits on Slack;
 * `approvers`: in the threads of the messages sent to approvers too.
 */
async function startNotice(userId: string, approvalId: string, text: string, approvers: boolean): Promise<void> {
  try {
    await startChild(approvalNoticeWorkflow, {
      workflowId: approvalNoticeWorkflowId(approvalId, 'outcome'),
      args: [{ approvalId, text, ...(approvers ? { approvers } : {}) }],
      parentClosePolicy: ParentClosePolicy.ABANDON,
      workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
      typedSearchAttributes: searchAttributes('notice', { userId }),
      ...readableMetadata({ summary: `Outcome of approval ${approvalId}, noted in its chat threads` }),
    });
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
}
