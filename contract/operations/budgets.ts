// Monthly spend budgets in USD (UTC calendar month): an agent's, set by its owner, and a user's, set by
// an admin. Checked before each model step: once what was spent this month reaches a budget, the
// turn fails (`turn.failed` naming the budget) until it is raised or the month turns. The bundle does
// not carry a budget: its owner sets it here, and a redeploy keeps it.
import { defineOperation, type ResponseOf, type Sent } from './operation.ts';

const BUDGET_BODY_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['monthlyUsd'],
  properties: {
    monthlyUsd: {
      type: ['number', 'null'],
      minimum: 0,
      maximum: 1_000_000_000,
      description: 'USD per UTC calendar month; null removes the budget',
    },
  },
} as const;

const BUDGET_SCHEMA = {
  type: 'object',
  required: ['monthlyUsd', 'spentUsd', 'month'],
  properties: {
    monthlyUsd: { type: ['number', 'null'] },
    spentUsd: { type: 'number', description: 'What was spent this month: the cost recorded on replies completed since it began' },
    month: { type: 'string', description: 'This month, YYYY-MM (UTC)' },
  },
} as const;

export const setAgentBudget = defineOperation({
  id: 'setAgentBudget',
  method: 'put',
  path: '/agent/{name}/budget',
  summary: "Set or remove an agent's monthly spend budget",
  tag: 'agents',
  auth: { kind: 'scope', scope: 'agents:write' },
  body: { required: true, schema: BUDGET_BODY_SCHEMA },
  responses: {
    200: { description: 'The budget and this month’s spend', schema: BUDGET_SCHEMA },
    404: { description: 'You have no agent of that name' },
  },
});

export const setUserBudget = defineOperation({
  id: 'setUserBudget',
  method: 'put',
  path: '/admin/users/{id}/budget',
  summary: "Set or remove a user's monthly spend budget (admin only)",
  description: 'Applies to every agent of the user, beside each agent’s own budget; the first one spent stops its turns.',
  tag: 'admin',
  auth: { kind: 'admin' },
  body: { required: true, schema: BUDGET_BODY_SCHEMA },
  responses: {
    200: { description: 'The budget and this month’s spend', schema: BUDGET_SCHEMA },
    404: { description: 'No such user' },
  },
});

export type BudgetBody = Sent<typeof BUDGET_BODY_SCHEMA>;
export type Budget = ResponseOf<typeof setAgentBudget, 200>;
