// A model call (a step's, or a compaction's) held against the monthly budgets that apply to it, before
// it is sent (core/budget-holds.ts has the rules, store/budgets.ts the reads and writes). Nothing is
// read beyond the budgets themselves when none applies. While running calls hold what is left of a
// budget, the call waits for them to settle (heartbeating, so Temporal knows it lives); a budget spent
// meanwhile fails it, as one spent before did.
import { setTimeout as sleep } from 'node:timers/promises';
import { Context } from '@temporalio/activity';
import { CancelledFailure } from '@temporalio/common';
import type { ModelRef } from '../../contract/bundle.ts';
import { appliesAny, endedAttemptCharge, holdAmounts, admission, type HoldAmounts } from '../../core/budget-holds.ts';
import { FAILURE, nonRetryable } from '../../lib/workflow-safe/failures.ts';
import type { Db } from '../../store/db.ts';
import { budgetsFor, holdBudget, settleBudgetHold } from '../../store/budgets.ts';
import { holdPriceOf, tokensUsd, type Price, type Pricing, type UsageForCost } from '../model/pricing.ts';
import type { ListedPrice } from '../model/listed-models.ts';
import { endAsAborted } from './confirm-abort.ts';

/** How long a hold outlives a worker that died with its call: the step's start-to-close timeout. */
export const HOLD_LEASE_MS = 15 * 60_000;
/** How long a call waits for running calls to leave room, within its activity's start-to-close timeout. */
const WAIT_FOR_ROOM_MS = 10 * 60_000;
/** Between two looks for room: calls settle in seconds. */
const LOOK_AGAIN_MS = { first: 250, most: 2_000 };

/** The price a provider lists for a model (OpenRouter's model list), when it lists one. */
export type ListedPriceOf = (ref: ModelRef) => Promise<ListedPrice | undefined>;

export interface BudgetHold {
  key: string;
  /**
   * What the call cost, when neither the provider nor a price said (a cost-reporting provider that did
   * not): its tokens at the price it was held at, else its input estimate and the output it wrote.
   */
  fallbackCost(usage: UsageForCost | undefined, outputTokens: number): number;
  /** The attempt ended without a message carrying its cost: charged, or let go if the provider never answered. */
  settleEnded(attempt: { providerAnswered: boolean; outputTokens: number }): Promise<void>;
  /** The call's cost is known but on no message (yet): charged that. */
  settleAt(usd: number): Promise<void>;
}

export interface HoldRequest {
  userId: string;
  agentId: string;
  /** The session the call runs in: a child of other agents' calls counts against their budgets too. */
  sessionId: string;
  /**
   * The call, as `<prefix><execution>`: `prefix` names what the call writes (a step's message, a
   * summary), the rest one execution of it (the activity and its attempt). Holds of earlier executions
   * under the same prefix still running are taken for dead (their worker gone): they count their input.
   */
  prefix: string;
  execution: string;
  ref: ModelRef;
  /** The request's input, estimated (activities/model/token-estimate.ts). */
  inputTokens: number;
  /** The most output the call may write (MODEL_STEP_MAX_OUTPUT_TOKENS, or the summary's bound). */
  maxOutputTokens: number;
  signal: AbortSignal;
  heartbeat: () => void;
}

export interface HoldDeps {
  db: Db;
  pricing: Pricing;
  listedPrice?: ListedPriceOf;
}

/** The call's hold, or undefined when no budget applies; throws BudgetSpent or BudgetUnpricedModel. */
export async function holdForCall(deps: HoldDeps, request: HoldRequest): Promise<BudgetHold | undefined> {
  const { db } = deps;
  // Fail closed: a budget that cannot be read (the query throws) retries the call without sending it.
  const budgets = await budgetsFor(db, request.userId, request.agentId, request.sessionId);
  if (!appliesAny(budgets)) return undefined;
  const first = admission(budgets, request.userId);
  if (first.verdict === 'spent') throw nonRetryable(FAILURE.budgetSpent, first.message);
  const price = holdPriceOf(request.ref, deps.pricing, await deps.listedPrice?.(request.ref));
  if (!price) throw nonRetryable(FAILURE.budgetUnpriced, unpricedMessage(request.ref));
  // Input written to a prompt cache may cost more than input (Anthropic's 1.25×): held at the dearer.
  const holdPrice = {
    inputPerMillion: Math.max(price.inputPerMillion, price.cacheWritePerMillion),
    outputPerMillion: price.outputPerMillion,
  };
  const amounts = holdAmounts(holdPrice, request.inputTokens, request.maxOutputTokens);
  const key = `${request.prefix}${request.execution}`;
  const hold = {
    key,
    supersedes: request.prefix,
    userId: request.userId,
    agentId: request.agentId,
    sessionId: request.sessionId,
    amounts,
    leaseMs: HOLD_LEASE_MS,
  };
  const giveUpAt = Date.now() + WAIT_FOR_ROOM_MS;
  for (let wait = LOOK_AGAIN_MS.first; ; wait = Math.min(wait * 2, LOOK_AGAIN_MS.most)) {
    const verdict = await holdBudget(db, hold);
    if (verdict.verdict === 'room') return heldCall(db, key, price, amounts);
    if (verdict.verdict === 'spent') throw nonRetryable(FAILURE.budgetSpent, verdict.message);
    if (Date.now() >= giveUpAt) {
      throw nonRetryable(FAILURE.budgetSpent, `${verdict.message}; this call waited ${WAIT_FOR_ROOM_MS / 60_000} minutes for them to end`);
    }
    request.heartbeat();
    // An abort ends the wait at once (sleep rejects with the signal's reason).
    await sleep(wait, undefined, { signal: request.signal });
  }
}

/** A wait for room ended by the turn's abort (Temporal's, or its notice) ends the activity as an abort does. */
export async function heldOrAborted<T>(hold: () => Promise<T>): Promise<T> {
  try {
    return await hold();
  } catch (error) {
    const context = Context.current();
    if (context.cancellationSignal.aborted) throw new CancelledFailure('The turn was aborted');
    if (error instanceof Error && error.name === 'AbortError') await endAsAborted(context);
    throw error;
  }
}

function heldCall(db: Db, key: string, price: Price, amounts: HoldAmounts): BudgetHold {
  return {
    key,
    fallbackCost(usage, outputTokens) {
      if (usage?.inputTokens !== undefined && usage.outputTokens !== undefined) {
        return tokensUsd(usage.inputTokens, price.inputPerMillion) + tokensUsd(usage.outputTokens, price.outputPerMillion);
      }
      return endedAttemptCharge(price, amounts, { providerAnswered: true, outputTokens });
    },
    settleEnded: ({ providerAnswered, outputTokens }) =>
      settleBudgetHold(db, key, endedAttemptCharge(price, amounts, { providerAnswered, outputTokens })),
    settleAt: (usd) => settleBudgetHold(db, key, usd),
  };
}

function unpricedMessage(ref: ModelRef): string {
  return (
    `A monthly budget applies, and the model "${ref.modelId}" of provider "${ref.providerId}" has no known price, so what it costs ` +
    'could not be counted: it was not called. The operator can price it (MODEL_PRICES, or UNPRICED_MODEL_PRICE for every model without one); ' +
    'or choose a priced model'
  );
}
