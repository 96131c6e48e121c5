// Monthly spend budgets (USD, UTC calendar month) of users and agents, and what counts against them:
// the cost recorded on each reply and summary completed since the month began (a fork's copies of
// replies are not spent again), the charges of attempts that left no message, and what model calls
// running now hold (schema/migrations/0028_budget_holds.sql; the rules are core/budget-holds.ts).
import { admission, type Admission, type Budgets, type HoldAmounts } from '../core/budget-holds.ts';
import { inTransaction, type Db, type DbClient } from './db.ts';

export type { Budgets } from '../core/budget-holds.ts';

const MONTH_START = "date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'";

type Owner = 'user_id' | 'agent_id';

/**
 * The rows of `alias` (a session or a hold) that count against the owner `id` (an SQL expression): a
 * user's, or an agent's: its own and those of the child sessions its calls opened, at any depth
 * (their `caller_agent_ids` name it; docs/tools.md, "Calling other agents").
 */
const OWNED = (alias: string, column: Owner, id: string) =>
  column === 'user_id' ? `${alias}.user_id = ${id}` : `(${alias}.agent_id = ${id} OR ${alias}.caller_agent_ids @> ARRAY[${id}]::text[])`;

/** Recorded costs this month: replies and summaries. `id` is an SQL expression, the owner's id. */
const RECORDED = (column: Owner, id: string) => `(SELECT coalesce(sum(m.cost_usd), 0) FROM sessions s JOIN messages m ON m.session_id = s.id
   WHERE ${OWNED('s', column, id)} AND m.role IN ('assistant', 'summary') AND m.copied_from IS NULL AND m.completed_at >= ${MONTH_START})`;

/** Charges this month of attempts that left no message: settled ones, and holds that lapsed unsettled (their worker died). */
const CHARGED = (column: Owner, id: string) => `(SELECT coalesce(sum(coalesce(h.charged_usd, h.input_usd)), 0) FROM budget_holds h
   WHERE ${OWNED('h', column, id)} AND (h.charged_usd IS NOT NULL OR h.expires_at < now()) AND h.created_at >= ${MONTH_START})`;

/** What calls running now hold. */
const HELD = (column: Owner, id: string) => `(SELECT coalesce(sum(h.reserved_usd), 0) FROM budget_holds h
   WHERE ${OWNED('h', column, id)} AND h.charged_usd IS NULL AND h.expires_at >= now())`;

const SPENT = (column: Owner, id: string) => `(${RECORDED(column, id)} + ${CHARGED(column, id)})`;

/** The budgets that apply to a call of `agentId` run for `userId`, each with what counts against it; none set, none summed. */
export async function budgetsFor(db: Db | DbClient, userId: string, agentId: string, sessionId?: string): Promise<Budgets> {
  // Two owners, one id each: the sums are computed only for a budget that is set.
  const { rows } = await db.query<{
    month: string;
    user_budget: string | null;
    agent_budget: string | null;
    agent_name: string;
    user_spent: string | null;
    user_held: string | null;
    agent_spent: string | null;
    agent_held: string | null;
    callers: { name: string; budget: string; spent: string; held: string }[];
  }>(
    `SELECT to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM') AS month, b.user_budget, b.agent_budget, b.agent_name,
            CASE WHEN b.user_budget IS NOT NULL THEN ${SPENT('user_id', '$1')} END AS user_spent,
            CASE WHEN b.user_budget IS NOT NULL THEN ${HELD('user_id', '$1')} END AS user_held,
            CASE WHEN b.agent_budget IS NOT NULL THEN ${SPENT('agent_id', '$2')} END AS agent_spent,
            CASE WHEN b.agent_budget IS NOT NULL THEN ${HELD('agent_id', '$2')} END AS agent_held,
            -- The budgets of the agents whose calls opened this session (up its chain), where they have one.
            (SELECT coalesce(json_agg(json_build_object('name', c.name, 'budget', c.monthly_budget_usd,
                                                        'spent', ${SPENT('agent_id', 'c.id')}, 'held', ${HELD('agent_id', 'c.id')})), '[]')
               FROM sessions cs JOIN agents c ON c.id = ANY(cs.caller_agent_ids)
              WHERE cs.id = $3 AND c.monthly_budget_usd IS NOT NULL) AS callers
       FROM (SELECT u.monthly_budget_usd AS user_budget, a.monthly_budget_usd AS agent_budget, a.name AS agent_name
               FROM users u JOIN agents a ON a.id = $2 WHERE u.id = $1) AS b`,
    [userId, agentId, sessionId ?? null],
  );
  const row = rows[0];
  if (!row) return { month: '' };
  const budgets: Budgets = { month: row.month };
  if (row.user_budget !== null) {
    budgets.user = { monthlyUsd: Number(row.user_budget), spentUsd: Number(row.user_spent), heldUsd: Number(row.user_held) };
  }
  if (row.agent_budget !== null) {
    budgets.agent = {
      name: row.agent_name,
      monthlyUsd: Number(row.agent_budget),
      spentUsd: Number(row.agent_spent),
      heldUsd: Number(row.agent_held),
    };
  }
  if (row.callers.length > 0) {
    budgets.callers = row.callers.map((caller) => ({
      name: caller.name,
      monthlyUsd: Number(caller.budget),
      spentUsd: Number(caller.spent),
      heldUsd: Number(caller.held),
    }));
  }
  return budgets;
}

/**
 * Admits a call against the budgets of its user and agent and, when there is room, holds `amounts` for it
 * under `key` until `leaseMs` from now: the check and the hold under the user's lock (a user's budget
 * covers all its agents, an agent's budget is its user's), each read after the lock is taken, so calls
 * admitted at once each see the others' holds. Unsettled holds of earlier executions of the same call
 * (keys starting with `supersedes`: a worker died with them) lapse first, counting their input, so a
 * retry does not wait on its own dead attempt.
 */
export async function holdBudget(
  db: Db,
  input: {
    key: string;
    supersedes: string;
    userId: string;
    agentId: string;
    /** The session the call runs in: the agents that called it (its caller_agent_ids) count the hold too. */
    sessionId?: string;
    amounts: HoldAmounts;
    leaseMs: number;
  },
): Promise<Admission> {
  return inTransaction(db, async (client) => {
    await client.query("SELECT pg_advisory_xact_lock(hashtextextended('budget:' || $1, 0))", [input.userId]);
    await client.query(
      `UPDATE budget_holds SET expires_at = now() - interval '1 millisecond'
        WHERE user_id = $1 AND left(hold_key, length($2)) = $2 AND hold_key <> $3 AND charged_usd IS NULL AND expires_at > now()`,
      [input.userId, input.supersedes, input.key],
    );
    const verdict = admission(await budgetsFor(client, input.userId, input.agentId, input.sessionId), input.userId);
    if (verdict.verdict !== 'room') return verdict;
    await client.query(
      `INSERT INTO budget_holds (hold_key, user_id, agent_id, reserved_usd, input_usd, expires_at, caller_agent_ids)
       VALUES ($1, $2, $3, $4, $5, now() + $6 * interval '1 millisecond',
               coalesce((SELECT caller_agent_ids FROM sessions WHERE id = $7), '{}'))
       ON CONFLICT (hold_key) DO NOTHING`,
      [input.key, input.userId, input.agentId, input.amounts.reservedUsd, input.amounts.inputUsd, input.leaseMs, input.sessionId ?? null],
    );
    return verdict;
  });
}

/** An attempt ended without a message to carry its cost: charged `usd` (the hold goes when that is nothing). */
export async function settleBudgetHold(db: Db, key: string, usd: number): Promise<void> {
  if (usd > 0) await db.query('UPDATE budget_holds SET charged_usd = $2 WHERE hold_key = $1', [key, usd]);
  else await db.query('DELETE FROM budget_holds WHERE hold_key = $1', [key]);
}

/**
 * A call no budget held (none applied when it began) that leaves no message to carry its cost (an eval's
 * judge): charged as a settled hold, so it counts this month should a budget be set later. A retried
 * charge of the same call replaces the first.
 */
export async function chargeUnheldCall(
  db: Db,
  input: { key: string; userId: string; agentId: string; sessionId: string; usd: number },
): Promise<void> {
  if (input.usd <= 0) return;
  await db.query(
    `INSERT INTO budget_holds (hold_key, user_id, agent_id, reserved_usd, input_usd, charged_usd, expires_at, caller_agent_ids)
     VALUES ($1, $2, $3, 0, 0, $4, now(), coalesce((SELECT caller_agent_ids FROM sessions WHERE id = $5), '{}'))
     ON CONFLICT (hold_key) DO UPDATE SET charged_usd = EXCLUDED.charged_usd`,
    [input.key, input.userId, input.agentId, input.usd, input.sessionId],
  );
}

/** The holds of calls whose cost is now stored on a message: in the transaction that stores it. */
export async function releaseBudgetHolds(client: DbClient, keys: readonly string[]): Promise<void> {
  if (keys.length > 0) await client.query('DELETE FROM budget_holds WHERE hold_key = ANY($1)', [keys]);
}

export const spentByUser = (db: Db, userId: string) => spentThisMonth(db, 'user_id', userId);
export const spentByAgent = (db: Db, agentId: string) => spentThisMonth(db, 'agent_id', agentId);

async function spentThisMonth(db: Db, column: Owner, id: string): Promise<number> {
  const { rows } = await db.query<{ spent: string }>(`SELECT ${SPENT(column, '$1')}::text AS spent`, [id]);
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
              ${SPENT('agent_id', 'a.id')}::text AS spent
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
