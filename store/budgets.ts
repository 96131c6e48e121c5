// Monthly spend budgets (USD, UTC calendar month) of users and agents, and what they spent this month:
// the cost recorded on each reply completed since the month began (a fork's copies of replies are not
// spent again). Read before each model step, so a turn stops once a budget is spent.
import type { Db } from './db.ts';

const MONTH_START = "date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'";

export interface BudgetState {
  monthlyUsd: number;
  spentUsd: number;
}

export interface Budgets {
  /** 'YYYY-MM', UTC. */
  month: string;
  user?: BudgetState;
  agent?: BudgetState & { name: string };
}

/** The budgets that apply to a step of `agentId` run for `userId`, each with this month's spend; none set, none read. */
export async function budgetsFor(db: Db, userId: string, agentId: string): Promise<Budgets> {
  const { rows } = await db.query<{ month: string; user_budget: string | null; agent_budget: string | null; agent_name: string }>(
    `SELECT to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM') AS month, u.monthly_budget_usd AS user_budget,
            a.monthly_budget_usd AS agent_budget, a.name AS agent_name
       FROM users u JOIN agents a ON a.id = $2 WHERE u.id = $1`,
    [userId, agentId],
  );
  const row = rows[0];
  if (!row) return { month: '' };
  const budgets: Budgets = { month: row.month };
  if (row.user_budget !== null) budgets.user = { monthlyUsd: Number(row.user_budget), spentUsd: await spentByUser(db, userId) };
  if (row.agent_budget !== null) {
    budgets.agent = { name: row.agent_name, monthlyUsd: Number(row.agent_budget), spentUsd: await spentByAgent(db, agentId) };
  }
  return budgets;
}

export const spentByUser = (db: Db, userId: string) => spentThisMonth(db, 'user_id', userId);
export const spentByAgent = (db: Db, agentId: string) => spentThisMonth(db, 'agent_id', agentId);

async function spentThisMonth(db: Db, column: 'user_id' | 'agent_id', id: string): Promise<number> {
  const { rows } = await db.query<{ spent: string }>(
    `SELECT coalesce(sum(m.cost_usd), 0)::text AS spent
       FROM sessions s JOIN messages m ON m.session_id = s.id
      WHERE s.${column} = $1 AND m.role IN ('assistant', 'summary') AND m.copied_from IS NULL AND m.completed_at >= ${MONTH_START}`,
    [id],
  );
  return Number(rows[0]!.spent);
}

/** Sets (or, with null, removes) a user's monthly budget; false when there is no such user. */
export async function setUserBudget(db: Db, userId: string, monthlyUsd: number | null): Promise<boolean> {
  const { rowCount } = await db.query('UPDATE users SET monthly_budget_usd = $2 WHERE id = $1', [userId, monthlyUsd]);
  return rowCount === 1;
}

/** Sets (or removes) the monthly budget of the user's live agent `name`; its id, or undefined when there is none. */
export async function setAgentBudget(db: Db, userId: string, name: string, monthlyUsd: number | null): Promise<string | undefined> {
  const { rows } = await db.query<{ id: string }>(
    'UPDATE agents SET monthly_budget_usd = $3 WHERE user_id = $1 AND name = $2 AND deleted_at IS NULL RETURNING id',
    [userId, name, monthlyUsd],
  );
  return rows[0]?.id;
}

/** This month ('YYYY-MM', UTC), the user's budget and spend, and each live agent's budget and spend. */
export async function budgetOverview(
  db: Db,
  userId: string,
): Promise<{
  month: string;
  user: { monthlyUsd: number | null; spentUsd: number };
  agents: Map<string, { monthlyUsd: number | null; spentUsd: number }>;
}> {
  const [{ rows: head }, { rows: perAgent }] = await Promise.all([
    db.query<{ month: string; budget: string | null }>(
      "SELECT to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM') AS month, monthly_budget_usd AS budget FROM users WHERE id = $1",
      [userId],
    ),
    db.query<{ agent_id: string; budget: string | null; spent: string }>(
      `SELECT a.id AS agent_id, a.monthly_budget_usd AS budget,
              coalesce((SELECT sum(m.cost_usd) FROM sessions s JOIN messages m ON m.session_id = s.id
                         WHERE s.agent_id = a.id AND m.role IN ('assistant', 'summary') AND m.copied_from IS NULL
                           AND m.completed_at >= ${MONTH_START}), 0)::text AS spent
         FROM agents a WHERE a.user_id = $1 AND a.deleted_at IS NULL`,
      [userId],
    ),
  ]);
  const agents = new Map(
    perAgent.map((row) => [row.agent_id, { monthlyUsd: row.budget === null ? null : Number(row.budget), spentUsd: Number(row.spent) }]),
  );
  const budget = head[0]?.budget ?? null;
  return {
    month: head[0]?.month ?? '',
    user: { monthlyUsd: budget === null ? null : Number(budget), spentUsd: await spentByUser(db, userId) },
    agents,
  };
}
