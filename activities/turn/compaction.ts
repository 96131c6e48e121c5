// A compaction: the older part of a session's conversation summarised by a model call, stored as a
// `summary` message with a `session.compacted` event (store/compactions.ts), so later steps send the
// summary and the recent messages instead of everything (docs/models.md, "Long conversations"). It runs as an
// activity of its own, scheduled by the turn when a step finds the conversation past the threshold or
// the provider refuses it as too long, or by the session on POST /session/<id>/compact: retried,
// aborted with its turn, billed like a step, and visible in the Temporal Web UI as `compactConversation`.
import { Context } from '@temporalio/activity';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import type { ModelMessage } from 'ai';
import type { CompactionInput, CompactionResult } from '../../core/turn-types.ts';
import { TERMINAL_TURN_EVENTS, type MessageView, type TokenUsage } from '../../contract/events.ts';
import { sessionHasEvent } from '../../store/events.ts';
import { addToTotals } from '../../core/turn-progress.ts';
import type { ModelRef } from '../../contract/bundle.ts';
import type { ProviderId } from '../../contract/bundle-constants.ts';
import { FAILURE, nonRetryable } from '../../lib/workflow-safe/failures.ts';
import { conversation, hasMessage, lastTurnId } from '../../store/messages.ts';
import { ConversationRevertedError, recordCompaction, type NewCompaction } from '../../store/compactions.ts';
import { heldOrAborted, holdForCall } from './budget-hold.ts';
import { agentModel, modelRefOf } from './agent-model.ts';
import { endAsAborted } from './confirm-abort.ts';
import { recordStepUsage } from './turn-metrics.ts';
import { heartbeatEvery, type ModelStepDeps } from './step-deps.ts';
import { compactedView, compactionCut } from '../model/compaction-view.ts';
import type { ContextWindows } from '../model/context-windows.ts';
import { messageTokens, requestTokens, textTokens } from '../model/token-estimate.ts';
import { summaryMessageText, toModelMessages } from '../model/history.ts';
import { systemPrompt } from '../model/system-prompt.ts';
import { modelToolSet } from '../tools/index.ts';
import { streamModelCall, type ModelCallOptions, type ModelCallPart } from '../model/stream-call.ts';
import { classifyModelError } from '../model/errors.ts';
import { shownUsage, stepTokens } from '../model/step-usage.ts';
import { costUsd } from '../model/pricing.ts';
import { storableText } from '../../lib/storable-text.ts';
import { fixedRequestText } from './context-check.ts';

/** The longest summary asked for: well within every listed model's output limit, and an eighth of a small window. */
const SUMMARY_MAX_TOKENS = 4_096;
/** What the summarising model is shown of each older tool result. */
const SUMMARISED_TOOL_RESULT_CHARS = 4_000;
/** Of the window, what the summarising request may take (the rest is the summary's room and the estimate's error). */
const SUMMARISING_SHARE = 0.75;

const INSTRUCTIONS = [
  'You compact a conversation between a user and an AI agent, so that the agent can go on with it after the',
  'messages you summarise are no longer shown to it. Write a summary for the agent to read as its own notes:',
  "the user's goals, requests and preferences; decisions taken and why; facts, names, ids, numbers, file paths",
  'and URLs that may matter later; what tools returned that is still relevant; questions still open; and what',
  'the agent was doing when the conversation was cut. Be complete about what matters and brief about the rest.',
  'Write in the language of the conversation. Do not address the user and do not continue the conversation.',
].join(' ');

export interface CompactionDeps extends Pick<
  ModelStepDeps,
  'db' | 'logger' | 'config' | 'masterKeys' | 'revisionOf' | 'abortNotices' | 'listedPrice'
> {
  contextWindows: ContextWindows;
}

export function compactionActivities(deps: CompactionDeps) {
  const { context: settings } = deps.config;

  return {
    async compactConversation(input: CompactionInput): Promise<CompactionResult> {
      const context = Context.current();
      if (
        input.runningTurnId &&
        !(await sessionHasEvent(deps.db, input.sessionId, TERMINAL_TURN_EVENTS, { turnId: input.runningTurnId }))
      ) {
        throw nonRetryable(FAILURE.sessionBusy, 'A turn is running in this session');
      }
      const { bundle, skills, remoteTools, callableAgents } = await deps.revisionOf(input.agentId, input.revision);
      const ref = modelRefOf(bundle, input.model);
      const messagesTurnId = input.userMessageId ?? input.turnId ?? (await lastTurnId(deps.db, input.sessionId));
      if (!messagesTurnId) return unchanged(0);
      const history = await conversation(deps.db, input.sessionId, messagesTurnId);
      const view = compactedView(history);
      const fixedText = fixedRequestText(systemPrompt(bundle, skills), modelToolSet(bundle, skills, remoteTools, callableAgents));
      const tokensOf = (message: MessageView) => messageTokens(message, settings.toolResultMaxChars);
      const tokensBefore = requestTokens({ view, fixedText, toolResultMaxChars: settings.toolResultMaxChars });

      // Retried after storing it (its result lost with a worker): answer what was stored, without a model call
      // (nor the model's credentials, which may have changed since).
      if (await hasMessage(deps.db, input.sessionId, input.summaryMessageId)) {
        return storedResult(await conversation(deps.db, input.sessionId, messagesTurnId), input.summaryMessageId, tokensBefore);
      }
      const own = await agentModel(deps, bundle, input.userId, ref);
      // The window the step found too small may be smaller than this worker knows (another worker learned it).
      const window = Math.min((await deps.contextWindows.of(ref, own.credentials.scope)).tokens, input.windowTokens ?? Infinity);
      // What is kept whole, with the summary and the fixed part of the request, stays under the threshold.
      const summaryTokens = Math.min(SUMMARY_MAX_TOKENS, Math.floor(window / 8));
      const keepTokens = Math.max(
        0,
        Math.min((window * settings.keepPercent) / 100, (window * settings.compactAtPercent) / 100 - textTokens(fixedText) - summaryTokens),
      );
      const cut = compactionCut(view.messages, Math.floor(keepTokens), tokensOf);
      if (cut === undefined) return unchanged(tokensBefore);
      const older = view.messages.slice(0, cut);
      const kept = view.messages.slice(cut);

      // The operator's summarising model, unless the user's own base URL serves this provider (it may not have it).
      const cheaper = own.ownBaseUrl ? undefined : settings.compactionModels[ref.providerId as ProviderId];
      const summaryRef: ModelRef = cheaper ? { providerId: ref.providerId, modelId: cheaper } : ref;
      const { model, inUse, credentials } = cheaper ? await agentModel(deps, bundle, input.userId, summaryRef) : own;
      const summarisingWindow = cheaper ? Math.min(window, (await deps.contextWindows.of(summaryRef, credentials.scope)).tokens) : window;

      const heartbeat = setInterval(() => context.heartbeat(), heartbeatEvery(context.info.heartbeatTimeoutMs));
      const told = input.turnId ? deps.abortNotices?.watch(input.sessionId, input.turnId) : undefined;
      try {
        const budget = Math.floor(summarisingWindow * SUMMARISING_SHARE) - summaryTokens;
        const abortSignal = AbortSignal.any([context.cancellationSignal, ...(told ? [told.signal] : [])]);
        // Older messages that do not fit in one request are summarised a part at a time, each part with
        // the summary of those before it: the summary of the last part stands for them all.
        let text = view.summary?.text;
        let usage: TokenUsage = { inputTokens: 0, outputTokens: 0 };
        let cost: number | null = null;
        // Each summarising call is held against the budgets that apply (budget-hold.ts) and charged its cost
        // as it ends, until the summary's message carries the total.
        const holds: string[] = [];
        for (const [index, part] of summarisedParts(text, older, budget).entries()) {
          const hold = await heldOrAborted(() =>
            holdForCall(
              { db: deps.db, pricing: deps.config.pricing, ...(deps.listedPrice ? { listedPrice: deps.listedPrice } : {}) },
              {
                userId: input.userId,
                agentId: input.agentId,
                sessionId: input.sessionId,
                prefix: `${input.sessionId}:${input.summaryMessageId}:`,
                execution: `${context.info.activityId}:${context.info.attempt}:${index}`,
                ref: summaryRef,
                inputTokens: summarisingTokens(text, part),
                maxOutputTokens: summaryTokens,
                signal: abortSignal,
                heartbeat: () => context.heartbeat(),
              },
            ),
          );
          if (hold) holds.push(hold.key);
          const call = await summarise({ model, messages: summarisingMessages(text, part), maxOutputTokens: summaryTokens, abortSignal });
          const aborted = context.cancellationSignal.aborted || told?.signal.aborted === true;
          const callCost =
            'failure' in call
              ? null
              : ((call.usage ? costUsd(summaryRef, call.usage, call.providerMetadata, deps.config.pricing) : null) ??
                hold?.fallbackCost(call.usage, textTokens(call.text)) ??
                null);
          if (hold && 'failure' in call)
            await hold.settleEnded({ providerAnswered: call.answered || aborted, outputTokens: textTokens(call.text) });
          else await hold?.settleAt(callCost ?? 0);
          if (context.cancellationSignal.aborted) throw new CancelledFailure('The turn was aborted');
          // Told by the turn's abort notice: confirmed with Temporal first, so that it is not retried.
          if (told?.signal.aborted) await endAsAborted(context);
          if ('failure' in call) {
            const { retryable, message, retryAfterMs, contextLength } = classifyModelError(call.failure, {
              providerId: summaryRef.providerId,
              secrets: inUse,
            });
            const why = `Compacting the conversation failed: ${message}`;
            // The summarising request itself was too long: the next attempt splits by the window it named.
            if (contextLength?.windowTokens) {
              deps.contextWindows.learn(summaryRef, contextLength.windowTokens, credentials.scope);
              throw ApplicationFailure.create({ message: why, type: FAILURE.modelTransient });
            }
            if (!retryable) throw nonRetryable(FAILURE.modelRejected, why);
            throw ApplicationFailure.create({
              message: why,
              type: FAILURE.modelTransient,
              ...(retryAfterMs !== undefined ? { nextRetryDelay: retryAfterMs } : {}),
            });
          }
          if (!call.text.trim())
            throw ApplicationFailure.create({ message: 'The model wrote an empty summary', type: FAILURE.modelTransient });
          ({ usage, costUsd: cost } = addToTotals(
            { usage, costUsd: cost },
            shownUsage(stepTokens(call.usage), credentials.showsCacheCounts),
            callCost,
          ));
          text = call.text;
          context.heartbeat();
        }
        const summary = text!;
        const keptTokens = kept.reduce((sum, message) => sum + tokensOf(message), 0);
        const tokensAfter = textTokens(fixedText) + textTokens(summaryMessageText(summary)) + keptTokens;
        const throughMessageId = older.at(-1)!.id;
        await recordCompactionOrRefuse(deps.db, {
          sessionId: input.sessionId,
          messagesTurnId,
          summaryMessageId: input.summaryMessageId,
          text: summary,
          throughMessageId,
          tokensBefore,
          tokensAfter,
          reason: input.reason,
          ...(input.turnId ? { turnId: input.turnId } : {}),
          model: summaryRef,
          usage,
          costUsd: cost,
          releasesHolds: holds,
        });
        recordStepUsage(summaryRef.providerId, usage, cost);
        deps.logger.info({ sessionId: input.sessionId, reason: input.reason, tokensBefore, tokensAfter, window }, 'conversation compacted');
        return {
          compacted: true,
          summaryMessageId: input.summaryMessageId,
          throughMessageId,
          tokensBefore,
          tokensAfter,
          usage,
          costUsd: cost,
        };
      } finally {
        clearInterval(heartbeat);
        told?.stop();
      }
    },
  };
}

/** Nothing was compacted: the conversation is sent as it was. */
function unchanged(tokens: number): CompactionResult {
  return { compacted: false, tokensBefore: tokens, tokensAfter: tokens, usage: { inputTokens: 0, outputTokens: 0 }, costUsd: null };
}

/** What a compaction stored before, read back from the conversation. */
function storedResult(history: MessageView[], summaryMessageId: string, tokensBefore: number): CompactionResult {
  const summary = history.find((message) => message.id === summaryMessageId);
  const part = summary?.parts.find((candidate) => candidate.type === 'compaction');
  // Reverted since: the compaction is gone from the conversation, as if it had never run.
  if (!summary || !part || part.type !== 'compaction') return unchanged(tokensBefore);
  return {
    compacted: true,
    summaryMessageId,
    throughMessageId: part.throughMessageId,
    tokensBefore: part.tokensBefore,
    tokensAfter: part.tokensAfter,
    usage: summary.usage ?? { inputTokens: 0, outputTokens: 0 },
    costUsd: summary.costUsd ?? null,
  };
}

/**
 * The older messages in parts that each fit in `budgetTokens` with the summary before them (a
 * summary is at most an eighth of the window): one part when they all fit. A single message past the
 * budget is a part of its own (its tool results are cut to SUMMARISED_TOOL_RESULT_CHARS), and a step's
 * tool results go with its calls.
 */
export function summarisedParts(previous: string | undefined, older: readonly MessageView[], budgetTokens: number): MessageView[][] {
  const parts: MessageView[][] = [];
  let part: MessageView[] = [];
  // The first part follows the stored summary; later ones follow a summary of at most this much.
  let room = budgetTokens - textTokens(previous ?? '');
  for (const message of older) {
    const tokens = messageTokens(message, SUMMARISED_TOOL_RESULT_CHARS);
    // Tool results stay in the part of the calls they answer (apart, neither half would be summarised whole).
    if (part.length > 0 && tokens > room && message.role !== 'tool') {
      parts.push(part);
      part = [];
      room = budgetTokens - Math.floor(budgetTokens / 8);
    }
    part.push(message);
    room -= tokens;
  }
  if (part.length > 0) parts.push(part);
  return parts;
}

/** One summarising request: the summary so far, a part of the older messages, then the instruction. */
function summarisingMessages(previous: string | undefined, part: readonly MessageView[]): ModelMessage[] {
  const head: ModelMessage[] = previous ? [{ role: 'user', content: [{ type: 'text', text: summaryMessageText(previous) }] }] : [];
  return [
    ...head,
    ...toModelMessages(part, { toolResultMaxChars: SUMMARISED_TOOL_RESULT_CHARS }),
    { role: 'user', content: [{ type: 'text', text: 'Write the summary of the conversation above now, as instructed.' }] },
  ];
}

type CallEnd = Extract<ModelCallPart, { type: 'model-call-end' }>;

/** The input of one summarising request, estimated as a step's is (token-estimate.ts). */
function summarisingTokens(previous: string | undefined, part: readonly MessageView[]): number {
  return (
    textTokens(INSTRUCTIONS) +
    textTokens(previous ? summaryMessageText(previous) : '') +
    part.reduce((sum, message) => sum + messageTokens(message, SUMMARISED_TOOL_RESULT_CHARS), 0)
  );
}

/** A summarising call's text and usage, or what ended it (and whether the provider had begun to answer). */
async function summarise(
  options: Omit<ModelCallOptions, 'instructions' | 'tools'>,
): Promise<
  | { text: string; usage?: CallEnd['usage']; providerMetadata?: CallEnd['providerMetadata'] }
  | { failure: unknown; answered: boolean; text: string }
> {
  let text = '';
  let end: CallEnd | undefined;
  let answered = false;
  for await (const part of streamModelCall({ ...options, instructions: INSTRUCTIONS, tools: {} })) {
    if (part.type === 'text-delta') text += storableText(part.text);
    else if (part.type === 'model-call-end') end = part;
    else if (part.type === 'error') return { failure: part.error, answered, text };
    if (part.type !== 'model-call-start') answered = true;
  }
  return { text, ...(end ? { usage: end.usage, providerMetadata: end.providerMetadata } : {}) };
}

/** The summary stored; a revert that took its messages out meanwhile ends the compaction, not retried (409 to its caller). */
async function recordCompactionOrRefuse(db: ModelStepDeps['db'], compaction: NewCompaction): Promise<void> {
  try {
    await recordCompaction(db, compaction);
  } catch (error) {
    if (error instanceof ConversationRevertedError) throw nonRetryable(FAILURE.conversationReverted, error.message);
    throw error;
  }
}
