// What a turn says when a monthly spend budget stops it before a model step (store/budgets.ts): which
// budget, what was spent of it in which month, and who can raise it.
import type { Budgets } from '../../store/budgets.ts';

const usd = (value: number) => `USD ${value.toFixed(4)}`;

/** Why no model step may run now, or undefined while every budget that applies has room. */
export function budgetSpentMessage(budgets: Budgets, userId: string): string | undefined {
  const { user, agent, month } = budgets;
  if (agent && agent.spentUsd >= agent.monthlyUsd) {
    return (
      `The monthly budget of agent "${agent.name}" is spent: ${usd(agent.spentUsd)} of ${usd(agent.monthlyUsd)} in ${month} (UTC). ` +
      `Its owner can raise it with PUT /agent/${agent.name}/budget`
    );
  }
  if (user && user.spentUsd >= user.monthlyUsd) {
    return (
      `Your monthly budget is spent: ${usd(user.spentUsd)} of ${usd(user.monthlyUsd)} in ${month} (UTC). ` +
      `An admin can raise it with PUT /admin/users/${userId}/budget`
    );
  }
  return undefined;
}
