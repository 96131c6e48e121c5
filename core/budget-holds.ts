// The rules of monthly spend budgets (docs/sessions.md, Budgets), apart from the reads and writes that
// apply them (store/budgets.ts, activities/turn/budget-hold.ts). A model call is admitted only while
// every budget that applies has room for it, counting what calls running now may still spend (their
// holds); it is held at what it may cost (its estimated input and the most output a step may write) until
// its cost is known, so calls admitted together overshoot a budget by at most the last one's hold (as
// good as that estimate: docs/sessions.md, Budgets).

/** A budget with what counts against it this month. */
export interface BudgetState {
  monthlyUsd: number;
  /** Recorded costs and the charges of attempts that left no message. */
  spentUsd: number;
  /** Held by calls that may still be running. */
  heldUsd: number;
}

export interface Budgets {
  /** 'YYYY-MM', UTC. */
  month: string;
  user?: BudgetState;
  agent?: BudgetState & { name: string };
  /**
   * The budgets of the agents whose calls opened this session, up its chain (docs/tools.md, "Calling other
   * agents"): what a child spends counts against each of them, its own and its children's spend included.
   */
  callers?: (BudgetState & { name: string })[];
}

/** US dollars per million tokens. */
export interface TokenPrice {
  inputPerMillion: number;
  outputPerMillion: number;
}

export type Admission =
  /** Every budget that applies has room: the call runs, held at its estimate. */
  | { verdict: 'room' }
  /** A budget is spent: no call until it is raised or the month turns. */
  | { verdict: 'spent'; message: string }
  /** Not spent, but what running calls hold fills it: the call waits for them to settle. */
  | { verdict: 'held'; message: string };

const usd = (value: number) => `USD ${value.toFixed(4)}`;

export const appliesAny = (budgets: Budgets): boolean =>
  budgets.user !== undefined || budgets.agent !== undefined || (budgets.callers?.length ?? 0) > 0;

/** Whether a call may run now against the budgets that apply to it. */
export function admission(budgets: Budgets, userId: string): Admission {
  const { user, agent, month } = budgets;
  if (agent && agent.spentUsd >= agent.monthlyUsd) {
    return {
      verdict: 'spent',
      message:
        `The monthly budget of agent "${agent.name}" is spent: ${usd(agent.spentUsd)} of ${usd(agent.monthlyUsd)} in ${month} (UTC). ` +
        `Its owner can raise it with PUT /agent/${agent.name}/budget`,
    };
  }
  const spentCaller = budgets.callers?.find((caller) => caller.spentUsd >= caller.monthlyUsd);
  if (spentCaller) {
    return {
      verdict: 'spent',
      message:
        `The monthly budget of agent "${spentCaller.name}", which called this one, is spent: ${usd(spentCaller.spentUsd)} of ` +
        `${usd(spentCaller.monthlyUsd)} in ${month} (UTC). Its owner can raise it with PUT /agent/${spentCaller.name}/budget`,
    };
  }
  if (user && user.spentUsd >= user.monthlyUsd) {
    return {
      verdict: 'spent',
      message:
        `Your monthly budget is spent: ${usd(user.spentUsd)} of ${usd(user.monthlyUsd)} in ${month} (UTC). ` +
        `An admin can raise it with PUT /admin/users/${userId}/budget`,
    };
  }
  const full = (state: BudgetState | undefined) => state !== undefined && state.spentUsd + state.heldUsd >= state.monthlyUsd;
  if (agent && full(agent)) return { verdict: 'held', message: heldMessage(`agent "${agent.name}"'s`, agent) };
  const fullCaller = budgets.callers?.find(full);
  if (fullCaller) return { verdict: 'held', message: heldMessage(`agent "${fullCaller.name}"'s`, fullCaller) };
  if (user && full(user)) return { verdict: 'held', message: heldMessage('your', user) };
  return { verdict: 'room' };
}

function heldMessage(whose: string, state: BudgetState): string {
  return `Model calls running now hold ${usd(state.heldUsd)} of what is left of ${whose} monthly budget (${usd(state.monthlyUsd - state.spentUsd)})`;
}

export interface HoldAmounts {
  /** The most the call can cost: its input and the most output a step may write. */
  reservedUsd: number;
  /** Its input alone: what the provider bills for a prompt whose answer never came back. */
  inputUsd: number;
}

/** What a call of `inputTokens` (estimated) that may write up to `maxOutputTokens` is held at. */
export function holdAmounts(price: TokenPrice, inputTokens: number, maxOutputTokens: number): HoldAmounts {
  const inputUsd = dollars(inputTokens, price.inputPerMillion);
  return { reservedUsd: round(inputUsd + dollars(maxOutputTokens, price.outputPerMillion)), inputUsd };
}

/**
 * What an attempt that ended without a message to carry its cost is charged: nothing when the provider
 * never began to answer (a refusal is not billed), else its input and the output it wrote.
 */
export function endedAttemptCharge(
  price: TokenPrice,
  amounts: HoldAmounts,
  attempt: { providerAnswered: boolean; outputTokens: number },
): number {
  if (!attempt.providerAnswered) return 0;
  return round(amounts.inputUsd + dollars(attempt.outputTokens, price.outputPerMillion));
}

function dollars(tokens: number, perMillion: number): number {
  return round((tokens * perMillion) / 1_000_000);
}

function round(value: number): number {
  // Float noise (0.000025000000000000002) would show in every total the API sums.
  return Math.round(value * 1e10) / 1e10;
}
