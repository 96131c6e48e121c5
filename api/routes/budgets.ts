// Monthly spend budgets (contract/operations/budgets.ts): an agent's by its owner, a user's by an admin.
import { OPERATIONS } from '../../contract/operations/index.ts';
import { NotFoundError } from '../../lib/workflow-safe/errors.ts';
import { setAgentBudget, setUserBudget, spentByAgent, spentByUser } from '../../store/budgets.ts';
import type { ApiDeps } from '../context.ts';
import { defineRoute } from '../route.ts';
import { noAgentNamed } from '../agents/owned-agent.ts';

const thisMonth = () => new Date().toISOString().slice(0, 7);

export function budgetRoutes(deps: ApiDeps) {
  return [
    defineRoute(OPERATIONS.setAgentBudget, {
      async handle({ params, body, principal }) {
        const agentId = await setAgentBudget(deps.db, principal!.userId, params.name!, body.monthlyUsd);
        if (!agentId) throw noAgentNamed(params.name!);
        return { status: 200, body: { monthlyUsd: body.monthlyUsd, spentUsd: await spentByAgent(deps.db, agentId), month: thisMonth() } };
      },
    }),
    defineRoute(OPERATIONS.setUserBudget, {
      async handle({ params, body }) {
        if (!(await setUserBudget(deps.db, params.id!, body.monthlyUsd))) throw new NotFoundError('No user with this id');
        return { status: 200, body: { monthlyUsd: body.monthlyUsd, spentUsd: await spentByUser(deps.db, params.id!), month: thisMonth() } };
      },
    }),
  ];
}
