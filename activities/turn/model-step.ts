// One model step of a turn: read the conversation from PostgreSQL, call the model through the AI
// SDK (no SDK retries: Temporal retries the whole step), stream its text into delta events, and
// store the finished assistant message. A retried attempt announces `step.retry` first and takes
// the message over; the previous attempt, if it still runs somewhere, can no longer write to it.
// What a step holds is bounded: its output (MODEL_STEP_MAX_OUTPUT_*, see core/output-limit.ts) and the
// files it sends (TURN_FILE_BYTES_LIMIT), read once per turn while the worker's WORKER_FILE_CACHE_BYTES
// has room for them (see turn-files.ts).
// This file runs the stages in order: the request (step-request.ts), the call (step-stream.ts), the
// answer stored (step-finish.ts), with what an attempt holds in step-attempt.ts. The rules are pure,
// in core/step-answer.ts and core/step-ending.ts.
import { Context } from '@temporalio/activity';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { nonRetryable } from '../../lib/workflow-safe/failures.ts';
import { claimAssistantMessage, hasTurnCompleted, lastUserText } from '../../store/messages.ts';
import type { ModelStepInput, StepResult } from '../../core/turn-types.ts';
import { compactFirst, messagesTurnOf, stepResultOf } from '../../core/step-answer.ts';
import { providerAnswered, stepEnding } from '../../core/step-ending.ts';
import { classifyModelError } from '../model/errors.ts';
import { agentModel, modelRefOf } from './agent-model.ts';
import { endAsAborted } from './confirm-abort.ts';
import { DeltaCommits } from './delta-commits.ts';
import { inStepSlot, wakeWaiter } from './step-queue.ts';
import { TurnFiles } from './turn-files.ts';
import { recordFirstToken } from './turn-metrics.ts';
import type { ModelStepDeps } from './step-deps.ts';
import { StepAttempt } from './step-attempt.ts';
import { stepRequest } from './step-request.ts';
import { callModel, readModelStream } from './step-stream.ts';
import { finishStep, reported, type StepScope } from './step-finish.ts';
import { teamProblems } from '../../store/team-check.ts';
import type { TeamRequest } from '../../lib/workflow-safe/approval-quorum.ts';

export function modelStepActivities(deps: ModelStepDeps) {
  const { limits } = deps.config;
  const turnFiles = new TurnFiles({ budgetBytes: limits.workerFileCacheBytes });
  // One per worker: every stream's delta writes of the moment share a transaction.
  const deltaCommits = new DeltaCommits(deps.db);
  // A place lapses with the step's start-to-close timeout (workflows/turn.ts), the longest a step runs.
  const queue = { limit: limits.runningTurnsPerUser, leaseMs: 15 * 60_000 };

  return {
    runModelStep: (input: ModelStepInput): Promise<StepResult> =>
      inStepSlot({ db: deps.db, logger: deps.logger, wake: wakeWaiter }, queue, input, () => runModelStep(input)),
  };

  async function runModelStep(input: ModelStepInput): Promise<StepResult> {
    const context = Context.current();
    // After a compaction the step runs again as a new activity: its attempts at the message go on counting.
    const attempt = (input.attemptsBefore ?? 0) + context.info.attempt;
    const revision = await deps.revisionOf(input.agentId, input.revision);
    const ref = modelRefOf(revision.bundle, input.model);
    const messagesTurnId = messagesTurnOf(input);
    // What an approval a tool's policy asks for quotes (activities/tools/classify.ts).
    const approvals = {
      lastUserMessage: () => lastUserText(deps.db, input.sessionId, messagesTurnId),
      turnAsks: input.asksApprovals === true,
      async teamProblem(team: TeamRequest, expiresInMs: number) {
        const problems = await teamProblems(deps.db, input.userId, { ...team, expiresInMs });
        if (problems.length === 0) return undefined;
        return `The approvers cannot be asked: ${problems.map((problem) => `${problem.path.slice(1)} ${problem.message}`).join('; ')}. Nothing was asked.`;
      },
    };
    // A turn started by this call is timed (first token) from here, without reading its start back.
    const claimedAt = performance.now();
    const claimed = await claimAssistantMessage(deps.db, {
      sessionId: input.sessionId,
      turnId: messagesTurnId,
      messageId: input.messageId,
      attempt,
      model: ref,
      // The turn's first step writes its turn.started, in the transaction that makes its first message.
      ...(input.startsTurn
        ? { startsTurn: { turnId: input.turnId, ...(input.userMessageId ? { userMessageId: input.userMessageId } : {}) } }
        : {}),
    });
    // Read by 0.1.0's workflow code in a rolling deploy (it writes turn.started itself without it); this
    // release's does not read it. Goes in 0.3.0 (workflows/release-patches.ts).
    const started = input.startsTurn ? { turnStarted: true as const } : {};
    if (claimed.status !== 'streaming') {
      // This step finished before (its result was lost with a worker): report it, and the turn's end it wrote.
      const ended =
        input.turnTotals && (await hasTurnCompleted(deps.db, input.sessionId, input.turnId)) ? { turnCompleted: true as const } : {};
      const done = stepResultOf(claimed.id, claimed.parts, claimed.usage, claimed.costUsd ?? null);
      return { ...(await reported(deps, { input, revision, approvals }, done, claimed.parts)), ...ended, ...started };
    }

    const { model, inUse, credentials } = await agentModel(deps, revision.bundle, input.userId, ref);
    const scope: StepScope = { input, revision, ref, attempt, messagesTurnId, approvals, showsCacheCounts: credentials.showsCacheCounts };
    const step = new StepAttempt({
      context,
      logger: deps.logger,
      abortNotices: deps.abortNotices,
      deltaCommits,
      deltaFlushMs: deps.deltaFlushMs,
      turnFiles,
      limits,
      step: { sessionId: input.sessionId, turnId: input.turnId, messageId: input.messageId, attempt },
    });
    const compact = (reason: 'threshold' | 'context-length', tokens: number, windowTokens: number): StepResult => ({
      ...compactFirst(input.messageId, reason, tokens, windowTokens, attempt),
      ...started,
    });
    try {
      const request = await stepRequest(deps, { ...scope, scope: credentials.scope, turnFiles, turnKey: step.turnKey });
      if ('over' in request) return compact('threshold', request.over.tokens, request.over.windowTokens);
      await step.holdBudget(
        { db: deps.db, pricing: deps.config.pricing, ...(deps.listedPrice ? { listedPrice: deps.listedPrice } : {}) },
        { userId: input.userId, agentId: input.agentId, ref, inputTokens: request.inputTokens },
      );
      const { stream, chat } = callModel(deps.config, { ...scope, model, signal: step.callSignal() }, request);
      step.chat = chat;
      // The turn's first token, as its user sees it: the first text of its first step's first attempt.
      const firstText = () => recordFirstToken(deps.db, input.sessionId, input.turnId, claimed.startedTurn ? claimedAt : undefined);
      const read = await readModelStream(stream, {
        writer: step.writer,
        meter: step.meter,
        chat,
        stop: () => step.overLimit.abort(),
        ...(input.step === 1 && context.info.attempt === 1 ? { firstText } : {}),
      });
      const stop = {
        cancelled: context.cancellationSignal.aborted,
        aborted: step.told?.signal.aborted === true,
        limitError: read.limitError,
      };
      step.answered = providerAnswered(read.answered, stop);
      const error = read.error === undefined ? undefined : classifyModelError(read.error, { providerId: ref.providerId, secrets: inUse });
      const ending = stepEnding({ ...stop, ...(error ? { error } : {}), ...(request.checked ? { checked: request.checked } : {}) });
      if (ending.kind === 'cancelled') throw new CancelledFailure('The turn was aborted');
      if (ending.kind === 'aborted') return await endAsAborted(context);
      if (ending.kind === 'answer') return { ...(await finishStep(deps, scope, read, request.turnUserMessageIds, step)), ...started };
      chat.fail(ending.spanError, ending.message);
      if (ending.kind === 'compact') {
        // The window is believed for later steps on the same credentials too (activities/model/context-windows.ts).
        if (ending.learnedWindow) deps.contextWindows.learn(ref, ending.learnedWindow, credentials.scope);
        return compact('context-length', ending.tokensBefore, ending.windowTokens);
      }
      if (ending.kind === 'failed') throw nonRetryable(ending.type, ending.message);
      // Another attempt of this step, here most likely, sends the same files. A provider that said when to
      // come back (429, 503 with retry-after) is asked again then, not sooner.
      step.keepFiles = true;
      const retryAfter = ending.retryAfterMs !== undefined ? { nextRetryDelay: ending.retryAfterMs } : {};
      throw ApplicationFailure.create({ message: ending.message, type: ending.type, ...retryAfter });
    } finally {
      await step.close();
    }
  }
}
