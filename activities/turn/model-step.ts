// One model step of a turn: read the conversation from PostgreSQL, call the model through the AI
// SDK (no SDK retries: Temporal retries the whole step), stream its text into delta events, and
// store the finished assistant message. A retried attempt announces `step.retry` first and takes
// the message over; the previous attempt, if it still runs somewhere, can no longer write to it.
// What a step holds is bounded: its output (MODEL_STEP_MAX_OUTPUT_*, see output-limit.ts) and the
// files it sends (TURN_FILE_BYTES_LIMIT), read once per turn while the worker's WORKER_FILE_CACHE_BYTES
// has room for them (see turn-files.ts).
import { Context } from '@temporalio/activity';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import type { Db } from '../../store/db.ts';
import type { Logger } from '../../lib/logger.ts';
import type { Config } from '../../lib/config.ts';
import type { MasterKey } from '../../lib/master-key.ts';
import type { MessagePart } from '../../contract/events.ts';
import { FAILURE, nonRetryable } from '../../lib/failures.ts';
import { claimAssistantMessage, conversation, finishAssistantMessage, hasTurnCompleted, lastUserText } from '../../store/messages.ts';
import { TOOL_POLICY_RULES, type ModelStepInput, type StepResult, type ToolCall } from '../../core/turn-types.ts';
import { agentModel, modelRefOf } from './agent-model.ts';
import { classifyModelError } from '../model/errors.ts';
import { shownUsage, stepTokens } from '../model/step-usage.ts';
import { cachesByBreakpoints, withCacheBreakpoints } from '../model/cache-breakpoints.ts';
import { costUsd } from '../model/pricing.ts';
import { systemPrompt } from '../model/system-prompt.ts';
import { streamModelCall, type ModelCallPart } from '../model/stream-call.ts';
import { toModelMessages } from '../model/history.ts';
import { compactedView } from '../model/compaction-view.ts';
import type { ContextWindows } from '../model/context-windows.ts';
import { checkContext, fixedRequestText } from './context-check.ts';
import { allRunByService, modelToolSet } from '../tools/index.ts';
import { classifyToolCalls } from '../tools/classify.ts';
import type { SchemaChecks } from '../tools/schema-checks.ts';
import { checkJsonReply, jsonReplyInstructions } from './json-reply.ts';
import { jsonSchema, Output, type JSONSchema7 } from 'ai';
import { DeltaCommits } from './delta-commits.ts';
import { DeltaWriter } from './delta-writer.ts';
import type { AbortNotices, WatchedTurn } from './abort-notices.ts';
import { endAsAborted } from './confirm-abort.ts';
import { conversationFiles } from './media-files.ts';
import { OutputMeter } from './output-limit.ts';
import { withinQuestionLimit } from './question-limit.ts';
import { inStepSlot, wakeWaiter } from './step-queue.ts';
import { heldOrAborted, holdForCall, type BudgetHold, type ListedPriceOf } from './budget-hold.ts';
import { requestTokens } from '../model/token-estimate.ts';
import { TurnFiles } from './turn-files.ts';
import type { Storage } from '../../lib/storage.ts';
import { storableText } from '../../lib/storable-text.ts';
import type { RevisionOf } from './revision-cache.ts';
import type { Bundle } from '../../contract/bundle.ts';
import { recordFirstToken, recordStepUsage, recordTurnDuration } from './turn-metrics.ts';
import { toolCallIdempotencyKey } from '../../lib/tool-call-keys.ts';
import { startChatSpan, type ChatSpan } from '../../lib/genai-spans.ts';

export interface ModelStepDeps {
  db: Db;
  logger: Logger;
  /** Checks against tenants' schemas (custom tool parameters, jsonReply), in threads with a time budget. */
  schemaChecks: SchemaChecks;
  config: Config;
  masterKeys: readonly MasterKey[];
  /** How long streamed text is batched before it is written as one delta event. */
  deltaFlushMs: number;
  revisionOf: RevisionOf;
  /** Where uploaded files are read from, for file parts in the conversation. */
  storage: Storage;
  /** Aborts told to this worker at once; without them an abort comes with the step's next heartbeat. */
  abortNotices?: AbortNotices;
  /** The models' context windows, with what this worker learned from providers' errors. */
  contextWindows: ContextWindows;
  /** The price a provider lists for a model, for a budget's hold (OpenRouter's model list). */
  listedPrice?: ListedPriceOf;
}

/**
 * How often a step heartbeats: Temporal learns that it lives, and brings an abort with the answer when
 * no notice brought it sooner (abort-notices.ts). Every 5 s, or a quarter of the heartbeat timeout when
 * that is shorter, so a late heartbeat or two never times a live step out.
 */
export function heartbeatEvery(heartbeatTimeoutMs: number | undefined): number {
  return Math.max(100, Math.min(5_000, (heartbeatTimeoutMs ?? Infinity) / 4));
}

export function modelStepActivities(deps: ModelStepDeps) {
  const { revisionOf } = deps;
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
    const { bundle, skills, remoteTools } = await revisionOf(input.agentId, input.revision);
    const questionsChecked = (calls: ToolCall[]) => withinQuestionLimit(deps.db, input.userId, limits.openApprovalsPerUser, calls);
    // What an approval a tool's policy asks for quotes (activities/tools/classify.ts).
    const approvals = {
      lastUserMessage: () => lastUserText(deps.db, input.sessionId, input.userMessageId ?? input.turnId),
      turnAsks: input.asksApprovals === true,
    };
    const ref = modelRefOf(bundle, input.model);

    // A regenerated turn writes into its user message's turn and sees the conversation up to it.
    const turnId = input.userMessageId ?? input.turnId;
    // A turn started by this call is timed (first token) from here, without reading its start back.
    const claimedAt = performance.now();
    const claimed = await claimAssistantMessage(deps.db, {
      sessionId: input.sessionId,
      turnId,
      messageId: input.messageId,
      attempt,
      model: ref,
      // The turn's first step writes its turn.started, in the transaction that makes its first message.
      ...(input.startsTurn
        ? { startsTurn: { turnId: input.turnId, ...(input.userMessageId ? { userMessageId: input.userMessageId } : {}) } }
        : {}),
    });
    // Tells the workflow this worker saw to turn.started (one from before that would not have).
    const started = input.startsTurn ? { turnStarted: true as const } : {};
    if (claimed.status !== 'streaming') {
      // This step finished before (its result was lost with a worker): report it, and the turn's end it wrote.
      const ended =
        input.turnTotals && (await hasTurnCompleted(deps.db, input.sessionId, input.turnId)) ? { turnCompleted: true as const } : {};
      const done = { ...resultOf(claimed.id, claimed.parts, claimed.usage, claimed.costUsd ?? null), ...ended, ...started };
      return {
        ...done,
        toolCalls: await questionsChecked(
          await classifyToolCalls(deps.schemaChecks, bundle, skills, done.toolCalls, remoteTools, approvals),
        ),
        policies: TOOL_POLICY_RULES,
        ...(await replyErrorsOf(deps.schemaChecks, bundle, done, claimed.parts)),
      };
    }

    const { model, inUse, credentials } = await agentModel(deps, bundle, input.userId, ref);
    /** The step ends without an answer; its message stays claimed, and its next run (after the compaction) takes it over. */
    const compactFirst = (reason: 'threshold' | 'context-length', tokensBefore: number, windowTokens: number): StepResult => ({
      ...resultOf(input.messageId, [], null, null),
      finishReason: 'compact',
      compact: { reason, tokensBefore, windowTokens, attempts: attempt },
      ...started,
    });

    const turnKey = `${input.sessionId}:${input.turnId}`;
    // Stops the model call once its output passes a limit; an abort of the turn stops it too.
    const overLimit = new AbortController();
    const meter = new OutputMeter({ maxTokens: limits.stepOutputTokens, maxBytes: limits.stepOutputBytes });
    let keepFiles = false;
    // No more often than the worker's heartbeat throttle sends (workers/create-worker.ts): each call
    // costs the event loop a trip through the SDK's heartbeat pipeline into the native worker, which
    // drops what comes faster. The step's writes do not heartbeat too.
    const heartbeatEveryMs = heartbeatEvery(context.info.heartbeatTimeoutMs);
    let heartbeat: NodeJS.Timeout | undefined;
    let told: WatchedTurn | undefined;
    let chat: ChatSpan | undefined;
    // Held against the budgets that apply until the call's cost is stored with its message (budget-hold.ts).
    let hold: BudgetHold | undefined;
    /** Its cost is on the message this attempt stored; else `cost`, when known, is charged to its hold. */
    let settled = false;
    let cost: number | null | undefined;
    // The provider began to answer (or the call was cut after it was sent): its prompt is billed.
    let answered = false;
    const writer = new DeltaWriter(deltaCommits, { sessionId: input.sessionId, messageId: input.messageId, attempt }, deps.deltaFlushMs);
    try {
      heartbeat = setInterval(() => context.heartbeat(), heartbeatEveryMs);
      told = deps.abortNotices?.watch(input.sessionId, input.turnId);
      const history = await conversation(deps.db, input.sessionId, turnId);
      // What the step saw of its turn: a message steering the turn after this read needs another step.
      const turnUserMessageIds = history
        .filter((message) => message.role === 'user' && message.turnId === turnId)
        .map((message) => message.id);
      const instructions = withReplyFormat(systemPrompt(bundle, skills), bundle);
      // A turn that must end in a structured reply may be told to do it without tools (allowSubtasks: false).
      const tools = bundle.jsonReply && !bundle.jsonReply.allowSubtasks ? {} : modelToolSet(bundle, skills, remoteTools);
      const fixedText = fixedRequestText(instructions, tools);
      // Past the compaction threshold, the turn compacts the conversation first and runs this step again.
      const checked =
        input.mayCompact && !input.compacted
          ? checkContext(history, fixedText, await deps.contextWindows.of(ref, credentials.scope), deps.config.context)
          : undefined;
      if (checked?.over) return compactFirst('threshold', checked.tokens, checked.windowTokens);
      const resolveFile = await conversationFiles(deps, input.sessionId, compactedView(history).messages, {
        limitBytes: limits.turnFileBytes,
        files: turnFiles,
        turnKey,
      });
      const messages = toModelMessages(history, { resolveFile, toolResultMaxChars: deps.config.context.toolResultMaxChars });
      hold = await heldOrAborted(() =>
        holdForCall(
          { db: deps.db, pricing: deps.config.pricing, ...(deps.listedPrice ? { listedPrice: deps.listedPrice } : {}) },
          {
            userId: input.userId,
            agentId: input.agentId,
            prefix: `${input.sessionId}:${input.messageId}:`,
            execution: `${context.info.activityId}:${context.info.attempt}`,
            ref,
            inputTokens:
              checked?.tokens ??
              requestTokens({ view: compactedView(history), fixedText, toolResultMaxChars: deps.config.context.toolResultMaxChars }),
            maxOutputTokens: limits.stepOutputTokens,
            signal: AbortSignal.any([context.cancellationSignal, ...(told ? [told.signal] : [])]),
            heartbeat: () => context.heartbeat(),
          },
        ),
      );
      chat = startChatSpan(
        {
          providerId: ref.providerId,
          modelId: ref.modelId,
          sessionId: input.sessionId,
          agentId: input.agentId,
          agentName: bundle.name,
          step: input.step,
          attempt,
          jsonReply: bundle.jsonReply !== undefined,
          ...(limits.sendStepOutputTokens ? { maxOutputTokens: limits.stepOutputTokens } : {}),
        },
        deps.config.tracing.captureContent,
        () => ({ instructions, messages }),
      );
      const stream = streamModelCall({
        model,
        // Anthropic's models cache a prompt's prefix only up to marked blocks (activities/model/cache-breakpoints.ts).
        ...(cachesByBreakpoints(ref) ? withCacheBreakpoints(instructions, messages) : { instructions, messages }),
        tools,
        ...(bundle.jsonReply
          ? { output: Output.object({ schema: jsonSchema(bundle.jsonReply.schema as JSONSchema7), name: 'reply' }) }
          : {}),
        ...(limits.sendStepOutputTokens ? { maxOutputTokens: limits.stepOutputTokens } : {}),
        abortSignal: AbortSignal.any([context.cancellationSignal, overLimit.signal, ...(told ? [told.signal] : [])]),
      });
      let text = '';
      const toolCalls: ToolCall[] = [];
      let streamError: unknown;
      let limitError: string | undefined;
      let end: Extract<ModelCallPart, { type: 'model-call-end' }> | undefined;
      // The turn's first token, as its user sees it: the first text of its first step's first attempt.
      let firstToken = input.step === 1 && context.info.attempt === 1;
      for await (const part of stream) {
        if (part.type !== 'error' && part.type !== 'model-call-start') answered = true;
        limitError = meter.count(part);
        if (limitError) {
          overLimit.abort();
          break;
        }
        if (part.type === 'text-delta') {
          // A NUL in a model's output would fail every write of this step, and of the steps
          // sharing its delta transaction; the same replacement keeps deltas and final text equal.
          const piece = storableText(part.text);
          text += piece;
          writer.push(piece);
          if (firstToken) {
            firstToken = false;
            recordFirstToken(deps.db, input.sessionId, input.turnId, claimed.startedTurn ? claimedAt : undefined);
          }
        } else if (part.type === 'tool-call') {
          toolCalls.push({ toolCallId: part.toolCallId, toolName: part.toolName, input: part.input });
        } else if (part.type === 'model-call-end') {
          end = part;
        } else if (part.type === 'model-call-response-metadata') {
          chat.responseMetadata(part);
        } else if (part.type === 'error') {
          streamError = part.error;
        }
      }
      // Whatever was streamed before an abort or error stays readable: flush it first.
      await writer.flush();
      // Cut by an abort or a limit, the request was sent: the provider bills what it read.
      if (context.cancellationSignal.aborted || told?.signal.aborted || limitError) answered = true;
      if (context.cancellationSignal.aborted) throw new CancelledFailure('The turn was aborted');
      if (told?.signal.aborted) await endAsAborted(context);
      if (limitError) {
        chat.fail(FAILURE.modelOutputLimit, limitError);
        throw nonRetryable(FAILURE.modelOutputLimit, limitError);
      }
      if (streamError !== undefined) {
        const { retryable, message, retryAfterMs, contextLength } = classifyModelError(streamError, {
          providerId: ref.providerId,
          secrets: inUse,
        });
        chat.fail(contextLength ? 'context_length_exceeded' : retryable ? FAILURE.modelTransient : FAILURE.modelRejected, message);
        // Too long for the model: compact to the window it named, and try once more. The window is believed
        // for later steps on the same credentials too (activities/model/context-windows.ts).
        if (contextLength && checked) {
          if (contextLength.windowTokens) deps.contextWindows.learn(ref, contextLength.windowTokens, credentials.scope);
          return compactFirst('context-length', checked.tokens, contextLength.windowTokens ?? checked.windowTokens);
        }
        // Another attempt of this step, here most likely, sends the same files.
        keepFiles = retryable;
        if (!retryable) throw nonRetryable(FAILURE.modelRejected, message);
        // A provider that said when to come back (429, 503 with retry-after) is asked again then, not sooner.
        throw ApplicationFailure.create({
          message,
          type: FAILURE.modelTransient,
          ...(retryAfterMs !== undefined ? { nextRetryDelay: retryAfterMs } : {}),
        });
      }

      // A stream that ends without its finish part (a provider that just closes the connection) has
      // no usage to report; its text and tool calls are kept all the same, as streamText kept them.
      const usage = end?.usage;
      const tokens = stepTokens(usage);
      const priced = usage ? costUsd(ref, usage, end?.providerMetadata, deps.config.pricing) : null;
      // Under a budget, a call nothing priced is charged at the price it was held at.
      cost = priced ?? hold?.fallbackCost(usage, meter.writtenTokens()) ?? null;
      chat.end({ finishReason: end?.finishReason ?? 'other', usage: tokens, costUsd: cost, text, toolCalls });
      // A structured reply keeps its JSON beside the text it was read from.
      const reply =
        bundle.jsonReply && toolCalls.length === 0 ? await checkJsonReply(deps.schemaChecks, bundle.jsonReply, text) : undefined;
      const parts: MessagePart[] = [
        ...(text ? [{ type: 'text' as const, text }] : []),
        ...toolCalls.map((call) => ({ type: 'tool-call' as const, ...call })),
        ...(reply?.ok ? [{ type: 'json' as const, json: reply.json }] : []),
      ];
      const classified = await classifyToolCalls(deps.schemaChecks, bundle, skills, toolCalls, remoteTools, approvals);
      // A final answer (no tool call, a valid structured reply) ends the turn in the same transaction.
      const final = toolCalls.length === 0 && (!reply || reply.ok);
      const completesTurn =
        input.turnTotals && final
          ? {
              turnId: input.turnId,
              messagesTurnId: turnId,
              readUserMessageIds: turnUserMessageIds,
              priorUsage: input.turnTotals.usage,
              priorCostUsd: input.turnTotals.costUsd,
            }
          : undefined;
      const { message, turnCompleted, turnAgeSeconds, completionSubscribed, stored } = await finishAssistantMessage(deps.db, {
        sessionId: input.sessionId,
        messageId: input.messageId,
        attempt,
        parts,
        status: 'complete',
        usage: shownUsage(tokens, credentials.showsCacheCounts),
        costUsd: cost,
        ...(hold ? { releasesHolds: [hold.key] } : {}),
        events: () =>
          classified.map(({ inputError: _inputError, approval: _approval, executor, ...call }) => ({
            type: 'tool.call' as const,
            data: {
              messageId: input.messageId,
              ...call,
              executor: executor ?? ('service' as const),
              idempotencyKey: toolCallIdempotencyKey(input.sessionId, input.messageId, call.toolCallId),
            },
          })),
        ...(completesTurn ? { completesTurn } : {}),
      });
      settled = stored;
      if (turnAgeSeconds !== undefined) recordTurnDuration('completed', turnAgeSeconds);
      recordStepUsage(ref.providerId, tokens, cost);
      // The next step sends the same files; keep them only if it follows at once. A question to a
      // person (or a client's tool) may take days, and the files are read again then.
      keepFiles = allRunByService(bundle, toolCalls, skills, remoteTools);
      const done = resultOf(message.id, message.parts, message.usage, message.costUsd ?? null);
      return {
        ...done,
        toolCalls: await questionsChecked(
          await classifyToolCalls(deps.schemaChecks, bundle, skills, done.toolCalls, remoteTools, approvals),
        ),
        policies: TOOL_POLICY_RULES,
        ...(await replyErrorsOf(deps.schemaChecks, bundle, done, message.parts)),
        turnUserMessageIds,
        finishReason: end?.finishReason ?? 'other',
        ...(turnCompleted ? { turnCompleted: true } : {}),
        ...(turnCompleted && completionSubscribed === false ? { completionUnsubscribed: true } : {}),
        ...started,
      };
    } finally {
      // An attempt that stored no message (or another attempt stored it first): charged its cost when it is known,
      // else what the provider billed for it (nothing if it never answered).
      if (hold && !settled) {
        await (
          cost !== undefined
            ? hold.settleAt(cost ?? 0)
            : hold.settleEnded({ providerAnswered: answered, outputTokens: meter.writtenTokens() })
        ).catch((error: unknown) => deps.logger.warn({ err: error, holdKey: hold?.key }, 'could not settle a budget hold'));
      }
      chat?.close();
      clearInterval(heartbeat);
      told?.stop();
      writer.close();
      if (keepFiles) turnFiles.keep(turnKey);
      else turnFiles.release(turnKey);
    }
  }
}

function withReplyFormat(prompt: string | undefined, bundle: Bundle): string | undefined {
  if (!bundle.jsonReply) return prompt;
  return [prompt, jsonReplyInstructions(bundle.jsonReply)].filter(Boolean).join('\n\n');
}

/** With `jsonReply`, why a finished reply (no tool calls, no valid JSON part) is not valid; read from what is stored. */
async function replyErrorsOf(
  checks: SchemaChecks,
  bundle: Bundle,
  done: StepResult,
  parts: MessagePart[],
): Promise<Pick<StepResult, 'replyErrors' | 'replyRetries'>> {
  if (!bundle.jsonReply || done.toolCalls.length > 0 || parts.some((part) => part.type === 'json')) return {};
  const check = await checkJsonReply(checks, bundle.jsonReply, done.text);
  return check.ok ? {} : { replyErrors: check.errors, replyRetries: bundle.jsonReply.retries };
}

function resultOf(messageId: string, parts: MessagePart[], usage: StepResult['usage'] | null | undefined, cost: number | null): StepResult {
  const text = parts.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('');
  const toolCalls = parts.flatMap((part) =>
    part.type === 'tool-call' ? [{ toolCallId: part.toolCallId, toolName: part.toolName, input: part.input }] : [],
  );
  return {
    messageId,
    text,
    toolCalls,
    finishReason: toolCalls.length ? 'tool-calls' : 'stop',
    usage: usage ?? { inputTokens: 0, outputTokens: 0 },
    costUsd: cost,
  };
}
