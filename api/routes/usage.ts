// GET /usage: the calling user's tokens and cost per agent, and per agent and UTC day.
import { OPERATIONS } from '../../contract/operations/index.ts';
import { agentTotals, dailyTotals } from '../../store/usage.ts';
import { budgetOverview } from '../../store/budgets.ts';
import type { ApiDeps } from '../context.ts';
import { defineRoute } from '../route.ts';

const DAY_MS = 86_400_000;

export function usageRoutes(deps: ApiDeps) {
  return [
    defineRoute(OPERATIONS.getUsage, {
      async handle({ query, principal }) {
        const userId = principal!.userId;
        const today = Math.floor(Date.now() / DAY_MS) * DAY_MS;
        const since = new Date(today - (query.days - 1) * DAY_MS);
        const [agents, daily, budgets] = await Promise.all([
          agentTotals(deps.db, userId),
          dailyTotals(deps.db, userId, since),
          budgetOverview(deps.db, userId),
        ]);
        const withBudgets = agents.map((agent) => {
          const budget = budgets.agents.get(agent.agentId);
          return { ...agent, monthlyBudgetUsd: budget?.monthlyUsd ?? null, monthSpentUsd: budget?.spentUsd ?? 0 };
        });
        const budget = { month: budgets.month, ...budgets.user };
        return { status: 200, body: { since: since.toISOString(), budget, agents: withBudgets, daily } };
      },
    }),
  ];
}
