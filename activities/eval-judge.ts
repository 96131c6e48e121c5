// The LLM rubric judge of an eval case (docs/evals.md): a model of the user's choosing (the candidate's
// unless the grader names one) reads the case's input, the candidate's reply and its tool calls, and
// scores the reply against the rubric from 0 to 1. The judge is a model call like a step's: held against
// the budgets that apply before it is sent (budget-hold.ts) and charged what it cost, with the provider
// credentials the agent is granted. A judge that cannot be asked (no key, a budget spent, a model the
// provider refuses) fails its verdict with the reason; a provider that fails for a while is retried with
// the activity. The verdict carries the judge's prompt, answer and cost, so the report shows its work.
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import type { ModelMessage } from 'ai';
import type { Bundle, ModelRef } from '../contract/bundle.ts';
import { DEFAULT_MIN_SCORE, RUBRIC_LIMITS, type RubricGrader, type Verdict } from '../contract/operations/evals.ts';
import type { Config } from '../lib/config.ts';
import type { MasterKey } from '../lib/master-key.ts';
import { FAILURE } from '../lib/workflow-safe/failures.ts';
import { storableText } from '../lib/storable-text.ts';
import type { Db } from '../store/db.ts';
import { chargeUnheldCall } from '../store/budgets.ts';
import { agentModel } from './turn/agent-model.ts';
import { holdForCall, type ListedPriceOf } from './turn/budget-hold.ts';
import { streamModelCall, type ModelCallPart } from './model/stream-call.ts';
import { classifyModelError } from './model/errors.ts';
import { costUsd } from './model/pricing.ts';
import { textTokens } from './model/token-estimate.ts';
import type { CaseOutcome } from './eval-graders.ts';

export interface JudgeDeps {
  db: Db;
  config: Config;
  masterKeys: readonly MasterKey[];
  listedPrice?: ListedPriceOf;
}

export interface JudgeRequest {
  userId: string;
  agentId: string;
  /** The case's session: the judge's cost counts where its turn's does. */
  sessionId: string;
  /** Names the judge's call among the case's: `<runId>:<position>:<grader index>`. */
  callId: string;
  /** One execution of it: the activity and its attempt. */
  execution: string;
  bundle: Bundle;
  grader: RubricGrader;
  input: string;
  outcome: CaseOutcome;
  signal: AbortSignal;
  heartbeat: () => void;
}

const INSTRUCTIONS =
  'You grade the reply of an AI agent against a rubric. You are given the user’s message, the agent’s reply and the tools it called. ' +
  'Judge only what the rubric asks. Answer with one JSON object and nothing else: {"score": <a number from 0 to 1>, "reason": "<one or two sentences>"}.';

/** The most of the reply and of each tool input the judge is shown. */
const SHOWN_CHARS = { reply: 20_000, toolInput: 500 };

const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max)}… (${text.length - max} more characters)` : text);

function judgePrompt(rubric: string, input: string, outcome: CaseOutcome): string {
  const calls = outcome.toolCalls.map(
    (call, index) => `${index + 1}. ${call.name} ${clip(JSON.stringify(call.input ?? {}), SHOWN_CHARS.toolInput)}`,
  );
  return [
    `Rubric:\n${rubric}`,
    `User's message:\n${input}`,
    `Tools the agent called:\n${calls.length > 0 ? calls.join('\n') : '(none)'}`,
    `Agent's reply:\n${clip(outcome.reply, SHOWN_CHARS.reply)}`,
  ].join('\n\n');
}

/** All a judge is sent, as the report shows it: its instructions, then the prompt. The same for the same case and grader. */
export function judgeRequestText(grader: RubricGrader, input: string, outcome: CaseOutcome): string {
  return `${INSTRUCTIONS}\n\n${judgePrompt(grader.rubric, input, outcome)}`;
}

/** The judge's score and reason, read from its answer: a JSON object, or failing that a `score: 0.8` it wrote. */
export function readScore(answer: string): { score: number; reason: string } | undefined {
  const start = answer.indexOf('{');
  const end = answer.lastIndexOf('}');
  if (start !== -1 && end > start) {
    try {
      const parsed = JSON.parse(answer.slice(start, end + 1)) as { score?: unknown; reason?: unknown };
      const score = typeof parsed.score === 'string' ? Number(parsed.score) : parsed.score;
      if (typeof score === 'number' && Number.isFinite(score) && score >= 0 && score <= 1) {
        return { score, reason: typeof parsed.reason === 'string' ? parsed.reason : '' };
      }
    } catch {
      // Not JSON after all: the pattern below may still find the score.
    }
  }
  const match = /score"?\s*[:=]\s*(\d+(?:\.\d+)?)/i.exec(answer);
  const score = match ? Number(match[1]) : NaN;
  return score >= 0 && score <= 1 ? { score, reason: '' } : undefined;
}

/** The longest wait between two attempts of a judge (the case workflow's maximumInterval). */
const MAX_RETRY_DELAY_MS = 60_000;

const modelName = (ref: ModelRef) => `${ref.providerId}/${ref.modelId}`;

/** The rubric's verdict; throws a retryable failure while the judge's provider fails for a while. */
export async function judgeCase(deps: JudgeDeps, request: JudgeRequest): Promise<Verdict> {
  const { grader, outcome } = request;
  const ref: ModelRef = grader.model ?? request.bundle.model;
  const minScore = grader.minScore ?? DEFAULT_MIN_SCORE;
  const prompt = judgePrompt(grader.rubric, request.input, outcome);
  const judge = { model: modelName(ref), prompt: judgeRequestText(grader, request.input, outcome) };
  const refused = (why: string, costUsd: number | null = null, answer = ''): Verdict => ({
    grader: 'rubric',
    passed: false,
    explanation: `The judge ${judge.model} ${why}`,
    judge: { ...judge, answer, costUsd },
  });

  let model: Awaited<ReturnType<typeof agentModel>>;
  let hold: Awaited<ReturnType<typeof holdForCall>>;
  try {
    model = await agentModel(deps, request.bundle, request.userId, ref);
    hold = await holdForCall(
      { db: deps.db, pricing: deps.config.pricing, ...(deps.listedPrice ? { listedPrice: deps.listedPrice } : {}) },
      {
        userId: request.userId,
        agentId: request.agentId,
        sessionId: request.sessionId,
        prefix: `judge:${request.callId}:`,
        execution: request.execution,
        ref,
        inputTokens: textTokens(INSTRUCTIONS) + textTokens(prompt),
        maxOutputTokens: RUBRIC_LIMITS.maxJudgeOutputTokens,
        signal: request.signal,
        heartbeat: request.heartbeat,
      },
    );
  } catch (error) {
    if (request.signal.aborted) throw new CancelledFailure('The eval was cancelled');
    // No key, a bad base URL, a budget spent or a model without a price: no retry mends it.
    if (error instanceof ApplicationFailure && error.nonRetryable) return refused(`was not asked: ${error.message}`);
    throw error;
  }

  const messages: ModelMessage[] = [{ role: 'user', content: [{ type: 'text', text: prompt }] }];
  let answer = '';
  let end: Extract<ModelCallPart, { type: 'model-call-end' }> | undefined;
  let failure: unknown;
  let answered = false;
  for await (const part of streamModelCall({
    model: model.model,
    instructions: INSTRUCTIONS,
    messages,
    tools: {},
    maxOutputTokens: RUBRIC_LIMITS.maxJudgeOutputTokens,
    abortSignal: request.signal,
  })) {
    if (part.type === 'text-delta') answer += storableText(part.text);
    else if (part.type === 'model-call-end') end = part;
    else if (part.type === 'error') {
      failure = part.error;
      break;
    }
    if (part.type !== 'model-call-start') answered = true;
    request.heartbeat();
  }

  const outputTokens = textTokens(answer);
  const cost =
    failure === undefined
      ? ((end?.usage ? costUsd(ref, end.usage, end.providerMetadata, deps.config.pricing) : null) ??
        hold?.fallbackCost(end?.usage, outputTokens) ??
        null)
      : null;
  if (hold && failure !== undefined) await hold.settleEnded({ providerAnswered: answered, outputTokens });
  else if (hold) await hold.settleAt(cost ?? 0);
  else if (cost !== null) {
    await chargeUnheldCall(deps.db, {
      key: `judge:${request.callId}:${request.execution}`,
      userId: request.userId,
      agentId: request.agentId,
      sessionId: request.sessionId,
      usd: cost,
    });
  }

  // Cancelled with its run: the call is settled above, and the case ends cancelled, not judged.
  if (request.signal.aborted) throw new CancelledFailure('The eval was cancelled');
  if (failure !== undefined) {
    const { retryable, message, retryAfterMs } = classifyModelError(failure, { providerId: ref.providerId, secrets: model.inUse });
    if (!retryable) return refused(`refused the request: ${message}`);
    throw ApplicationFailure.create({
      message: `The judge ${judge.model} failed: ${message}`,
      type: FAILURE.modelTransient,
      // At most the workflow's longest interval between attempts: a provider asking for an hour gets a minute.
      ...(retryAfterMs !== undefined ? { nextRetryDelay: Math.min(retryAfterMs, MAX_RETRY_DELAY_MS) } : {}),
    });
  }
  const read = readScore(answer);
  if (!read) return refused(`answered without a score from 0 to 1: ${JSON.stringify(clip(answer, 200))}`, cost, answer);
  const passed = read.score >= minScore;
  return {
    grader: 'rubric',
    passed,
    score: read.score,
    explanation: `Scored ${read.score} by ${judge.model}, ${passed ? 'at least' : 'below'} the ${minScore} needed${read.reason ? `: ${read.reason}` : ''}`,
    judge: { ...judge, answer, costUsd: cost },
  };
}
