// One turn of the agent loop: model step, then the tool calls it asked for, until the model answers
// without tools. Each model step is one activity (streaming to PostgreSQL, heartbeating, retried
// by Temporal); each tool call is run by its kind. Workflow history holds only step results.
import {
  ActivityCancellationType,
  rootCause,
  CancellationScope,
  deprecatePatch,
  isCancellation,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
} from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import { FAILURE, nonRetryable } from '../lib/workflow-safe/failures.ts';
import {
  TOOL_CALL_ATTEMPTS,
  type CompactionInput,
  type ModelStepInput,
  type StepResult,
  type ToolCall,
  type ServiceToolResult,
  type PlaceQueued,
  type ToolResultPart,
  type TurnInput,
  type TurnOutcome,
} from '../core/turn-types.ts';
import { ASK_MY_USER } from '../lib/workflow-safe/ask-my-user.ts';
import type { ToolResultInput } from '../core/client-tool-calls.ts';
import { inCallOrder, TurnProgress } from '../core/turn-progress.ts';
import { askUser } from './ask-user.ts';
import { approvedTool } from './tool-approval.ts';
import { signedInTool } from './connect-wait.ts';
import { clientTools, StoredAnswers } from './client-tools.ts';
import { agentCalls } from './agent-calls.ts';
import { agentCallEndedSignal } from './session-messages.ts';
import { messageId } from './ids.ts';
import { placeWaits, type PlaceWaits } from './place-waits.ts';
import { compactionPlaceKey, stepPlaceKey, toolPlaceKey } from '../core/place-keys.ts';
import { PATCHES_OF_0_1_0 } from './release-patches.ts';

function inputErrorResult(call: ToolCall, error: string): ToolResultPart {
  return { type: 'tool-result', toolCallId: call.toolCallId, toolName: call.toolName, output: error, isError: true };
}

/**
 * One turn as its own workflow: an agent node of a workflow graph's run (workflows/graph.ts). A session's
 * turns run in its session workflow (runTurn), which hands them steering messages and client answers.
 */
export async function turnWorkflow(input: TurnInput): Promise<TurnOutcome> {
  const turn = runTurn(input, { places: placeWaits() });
  // Its calls of other agents are answered here, the children's workers signalling this workflow.
  setHandler(agentCallEndedSignal, (answer) => turn.toolAnswer(answer));
  return turn.result;
}

/** A turn being run: its result, and how a message that steers it, or a client's answer, reaches it. */
export interface RunningTurnHandle {
  result: Promise<TurnOutcome>;
  steer(messageId: string): void;
  /** A client's tool answer the API stored (store/client-tool-answers.ts). */
  toolAnswer(answer: ToolResultInput): void;
}

/** Where the turn runs: the calling workflow's waits for places, and where a freed place is signalled. */
export interface TurnHost {
  /** The calling workflow's (placeWaits(), made once per run: it handles STEP_PLACE_FREED). */
  places: PlaceWaits;
  /** Given when the calling workflow is not the turn's own (a turn run in its session workflow). */
  wakeWorkflowId?: string;
}

/**
 * Runs one turn in the calling workflow: the session workflow's, or a graph's turn workflow's own body.
 * Called inside the cancellation scope that aborts it. The handlers it needs (a freed place, a client
 * tool's result) are registered on the calling workflow.
 */
export function runTurn(input: TurnInput, host: TurnHost): RunningTurnHandle {
  const progress = new TurnProgress(input.settings.maxSteps);
  const answers = new StoredAnswers();
  return {
    result: turnBody(input, progress, host, answers),
    steer: (messageId) => progress.steered(messageId),
    toolAnswer: (answer) => answers.deliver(answer),
  };
}

async function turnBody(input: TurnInput, progress: TurnProgress, host: TurnHost, answers: StoredAnswers): Promise<TurnOutcome> {
  const { places, wakeWorkflowId } = host;
  const waitsHere = wakeWorkflowId ? { wakeWorkflowId } : {};
  const { settings } = input;
  // Bookkeeping is one short, idempotent transaction each: local activities run it inside the
  // workflow task, saving a task round trip per call (see bench/turn-latency).
  const book = proxyLocalActivities<Activities>({ startToCloseTimeout: '30 seconds', retry: { maximumAttempts: 10 } });
  // One short try: the workflow task that carries a cancellation to Temporal waits for this local
  // activity, and a lost notice only leaves the abort to the step's heartbeat.
  const notice = proxyLocalActivities<Activities>({ startToCloseTimeout: '2 seconds', retry: { maximumAttempts: 1 } });
  const model = proxyActivities<Activities>({
    startToCloseTimeout: '15 minutes',
    heartbeatTimeout: settings.stepHeartbeatTimeoutMs,
    // An abort waits for the step to flush the text it streamed, so turn.aborted comes last.
    cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
    retry: {
      initialInterval: settings.stepRetryInitialIntervalMs,
      backoffCoefficient: 2,
      maximumAttempts: settings.stepMaxAttempts,
      nonRetryableErrorTypes: [FAILURE.modelRejected, FAILURE.modelConfiguration],
    },
  });
  // A tool call heartbeats while it runs (activities/turn/tools.ts): one on a worker that died is
  // tried again within seconds, not after the whole start-to-close timeout. (Timeouts are not part of
  // what a replay compares: histories recorded with 10 s replay the same.)
  const tools = proxyActivities<Activities>({
    startToCloseTimeout: '2 minutes',
    heartbeatTimeout: '6 seconds',
    retry: { maximumAttempts: TOOL_CALL_ATTEMPTS },
  });
  const client = clientTools(input, answers, ({ usage, costUsd }) => progress.childTurnSpent(usage, costUsd));
  const subagents = agentCalls(input);
  // The loop's rules (core/turn-progress.ts, `progress`): totals, steering read, what follows a step.

  // A step, tool call or compaction whose user already runs RUNNING_TURNS_PER_USER of them does not run
  // (activities/turn/step-queue.ts): it waits until a place is given back (or QUEUE_WAIT_MS), and asks again
  // (place-waits.ts). The wait is one timer, as the sleep it replaced was, so the histories that slept
  // replay (they had no signal to end it early); histories from before the queue (and, for calls and
  // compactions, from before they took places) never had a `queued` result and take no timer here.
  const stepInTurn = (stepInput: ModelStepInput): Promise<StepResult> =>
    places.run(stepPlaceKey(input.sessionId, stepInput.messageId), () => model.runModelStep(stepInput));
  // A step that finds the conversation too long for its model (StepResult.compact) has the turn compact
  // it (activities/turn/compaction.ts), then runs again, once, with the summary.
  const compactedStep = async (stepInput: ModelStepInput, asked: NonNullable<StepResult['compact']>): Promise<ModelStepInput> => {
    deprecatePatch(PATCHES_OF_0_1_0.compaction);
    const compactionInput: CompactionInput = {
      sessionId: input.sessionId,
      userId: input.userId,
      agentId: input.agentId,
      revision: input.revision,
      summaryMessageId: messageId(),
      reason: asked.reason,
      ...(asked.windowTokens ? { windowTokens: asked.windowTokens } : {}),
      turnId: input.turnId,
      ...(input.userMessageId ? { userMessageId: input.userMessageId } : {}),
      ...(input.model ? { model: input.model } : {}),
      mayQueue: true,
      ...waitsHere,
    };
    const compaction = await places.run(compactionPlaceKey(input.sessionId, compactionInput.summaryMessageId), () =>
      model.compactConversation(compactionInput),
    );
    progress.compacted(compaction.usage, compaction.costUsd);
    const totals = stepInput.turnTotals ? { turnTotals: progress.totalsSoFar() } : {};
    return { ...stepInput, ...totals, compacted: true, attemptsBefore: asked.attempts };
  };

  // Messages belong to the user message's turn (see TurnInput.userMessageId); events name turnId.
  const regenerated = input.userMessageId ? { userMessageId: input.userMessageId } : {};
  // Cancelled (an abort, an interrupting send, the session's end), the turn tells the worker streaming
  // its model step through PostgreSQL at once: the step cuts the model call and confirms the
  // cancellation with Temporal, rather than learn of it from its next heartbeat, 5 s apart
  // (activities/turn/abort-notices.ts). Awaited before the turn returns, so its marker is never left
  // behind by a workflow that ends meanwhile.
  let announced: Promise<void> = Promise.resolve();
  CancellationScope.current().cancelRequested.catch(() => {
    deprecatePatch(PATCHES_OF_0_1_0.abortNotices);
    announced = CancellationScope.nonCancellable(() =>
      notice.announceTurnAbort({ sessionId: input.sessionId, turnId: input.turnId }),
    ).catch(() => undefined);
  });
  try {
    try {
      // The first step writes turn.started with its first message, and a step giving the final answer
      // writes turn.completed with it: no transaction and no trip through the worker of their own, one
      // ahead of the first token and one ahead of the end.
      deprecatePatch(PATCHES_OF_0_1_0.turnEventsBySteps);
      let completedByStep = false;
      for (let step = 1; step <= settings.maxSteps; step++) {
        const stepMessageId = messageId();
        client.stepStarted(stepMessageId);
        const stepInput: ModelStepInput = {
          ...input,
          messageId: stepMessageId,
          step,
          ...(step === 1 ? { startsTurn: true } : {}),
          turnTotals: progress.totalsSoFar(),
          mayQueue: true,
          mayCompact: true,
          asksApprovals: true,
          ...waitsHere,
        };
        let result = await stepInTurn(stepInput);
        if (result.compact) result = await stepInTurn(await compactedStep(stepInput, result.compact));
        // Calls the client runs (custom tools with valid input) and calls of other agents (child sessions)
        // are awaited together, after the others.
        const awaitedCalls = result.toolCalls.filter((call) => call.executor !== undefined);
        client.stepDone(stepMessageId, awaitedCalls);
        const verdict = progress.afterStep(result, step);
        if (verdict.next === 'completed') {
          completedByStep = true;
          break;
        }
        if (verdict.next === 'answered') break;
        if (verdict.next === 'step') continue;
        if (verdict.next === 'invalid-reply') {
          // A reply that must be JSON valid against jsonReply.schema was not: the model is told why and tries again.
          const { attempt, attemptsLeft, errors } = verdict;
          await book.recordInvalidReply({
            sessionId: input.sessionId,
            turnId: input.userMessageId ?? input.turnId,
            invalidMessageId: result.messageId,
            attempt,
            errors,
            attemptsLeft,
            ...(attemptsLeft > 0 ? { feedbackMessageId: messageId() } : {}),
          });
          if (attemptsLeft <= 0) throw nonRetryable(FAILURE.replyInvalid, verdict.message);
          continue;
        }
        const results: ToolResultPart[] = [];
        // inputError first: a question past OPEN_APPROVALS_PER_USER comes with one. (Before that limit
        // no ask_my_user call had one, so recorded histories take the same branch as they did.)
        // The approval's question stays out of the activity's input: the history holds it once already.
        // A call takes one of its user's places as a step does, and waits for one the same way.
        const runService = ({ approval: _question, ...call }: ToolCall, approvedUntil?: string): Promise<ServiceToolResult> => {
          // Once an attempt may have acted (queued at a retry), the approval's validity is not checked again.
          let mayHaveRun = false;
          return places.run<ServiceToolResult | PlaceQueued>(
            toolPlaceKey(input.sessionId, stepMessageId, call.toolCallId),
            (queuedBefore) => {
              if (queuedBefore && 'ran' in queuedBefore && queuedBefore.ran) mayHaveRun = true;
              return tools.runBuiltinTool({
                sessionId: input.sessionId,
                agentId: input.agentId,
                revision: input.revision,
                call,
                // Names the call's idempotency key; an activity's input is not checked on replay.
                messageId: stepMessageId,
                userId: input.userId,
                turnId: input.turnId,
                mayQueue: true,
                ...waitsHere,
                ...(approvedUntil !== undefined && !mayHaveRun ? { approvedUntil } : {}),
              });
            },
          );
        };
        // A call whose MCP server needs its user to sign in asks them, and runs again once they have.
        const runSignedIn = (call: ToolCall, approvedUntil?: string) => signedInTool(input, call, () => runService(call, approvedUntil));
        const runTool = (call: ToolCall): Promise<ToolResultPart> =>
          call.inputError !== undefined
            ? Promise.resolve(inputErrorResult(call, call.inputError))
            : call.toolName === ASK_MY_USER
              ? askUser(input, call)
              : call.approval
                ? approvedTool(input, { ...call, approval: call.approval }, (approvedUntil) => runSignedIn(call, approvedUntil))
                : runSignedIn(call);
        // Other agents' calls start first, all at once: their children run while this turn's own calls do.
        // A call refused (the depth limit, a callee deleted) is answered with why, as a result would be.
        // (A step with none awaits nothing here: its commands come in the order they always did.)
        const agentCalls = awaitedCalls.filter((awaited) => awaited.executor === 'agent');
        if (agentCalls.length > 0) {
          await Promise.all(
            agentCalls.map(async (call) => {
              const refused = await subagents.start(stepMessageId, call);
              if (refused !== undefined) answers.deliver({ messageId: stepMessageId, toolCallId: call.toolCallId, error: refused });
            }),
          );
        }
        const serviceCalls = result.toolCalls.filter((call) => call.executor === undefined);
        // A step with calls its tools' policies ask about (core/tool-policies.ts) runs its calls at once, so
        // each approval is asked now and answerable in any order.
        if (serviceCalls.some((call) => call.approval)) {
          deprecatePatch(PATCHES_OF_0_1_0.toolApprovals);
          results.push(...(await Promise.all(serviceCalls.map(runTool))));
        } else {
          for (const call of serviceCalls) results.push(await runTool(call));
        }
        const resultsMessageId = messageId();
        if (awaitedCalls.length > 0) {
          results.push(...(await client.awaitResults(stepMessageId, awaitedCalls, resultsMessageId)));
        }
        // The tool message keeps the order of the calls.
        const turnId = input.userMessageId ?? input.turnId;
        await book.recordToolResults({
          sessionId: input.sessionId,
          turnId,
          messageId: resultsMessageId,
          results: inCallOrder(results, result.toolCalls),
        });
      }
      const outcome = progress.outcome('completed');
      if (!completedByStep)
        await book.completeTurn({ sessionId: input.sessionId, turnId: input.turnId, usage: outcome.usage, costUsd: outcome.costUsd });
      return outcome;
    } catch (error) {
      // Children (other agents' calls) still running end with this turn, whichever way it ends.
      const childrenAborted = subagents.abortUnanswered((messageId, toolCallId) => client.answered(messageId, toolCallId));
      if (childrenAborted) await childrenAborted;
      if (isCancellation(error)) {
        await CancellationScope.nonCancellable(() =>
          book.endTurn({ sessionId: input.sessionId, turnId: input.turnId, ...regenerated, outcome: 'aborted' }),
        );
        return progress.outcome('aborted');
      }
      // The innermost message: the activity's own words, not Temporal's wrapping.
      const message = rootCause(error) ?? String(error);
      // Not cancellable: an abort arriving now must not leave the turn without its terminal event.
      await CancellationScope.nonCancellable(() =>
        book.endTurn({ sessionId: input.sessionId, turnId: input.turnId, ...regenerated, outcome: 'failed', error: message }),
      );
      // Fail the workflow too, so operators see the failed turn as failed in the Web UI.
      throw nonRetryable(FAILURE.turnFailed, message);
    }
  } finally {
    client.ended();
    await announced;
  }
}
