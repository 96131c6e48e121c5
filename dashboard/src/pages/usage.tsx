// Usage per agent: tokens and USD cost summed over each agent's sessions, and per day over the last
// two weeks, as the service sums them (GET /usage), shown as charts and a table; this month's spend
// against the monthly budgets (yours and each agent's); and the limits per user (GET /limits).
import type { Client } from '@agent-service/sdk';
import { useClient } from '../auth/client-context.ts';
import { Link } from '../router.tsx';
import { BarChart } from '../usage/bar-chart.tsx';
import { LimitsTable } from '../usage/limits-table.tsx';
import { DAYS, dailySeries, type DayUsage } from '../usage/daily-usage.ts';
import { EmptyState, LoadedView } from '../ui/states.tsx';
import { usd } from '../ui/time.ts';
import { useLoad } from '../ui/use-load.ts';

async function loadUsage(client: Client, signal: AbortSignal) {
  const [usage, limits] = await Promise.all([client.usage.retrieve({ days: DAYS }, { signal }), client.limits.retrieve({ signal })]);
  return { agents: usage.agents, budget: usage.budget, limits, daily: { days: dailySeries(usage) satisfies DayUsage[] } };
}

/** This month's spend against a budget, or the spend alone when there is none. */
function againstBudget(spentUsd: number, monthlyUsd: number | null): string {
  return monthlyUsd === null ? `${usd(spentUsd)} (no budget)` : `${usd(spentUsd)} of ${usd(monthlyUsd)}`;
}

export function UsagePage() {
  const client = useClient();
  const loaded = useLoad((signal) => loadUsage(client, signal), [client]);
  return (
    <>
      <h1>Usage</h1>
      <LoadedView loaded={loaded} what="usage">
        {({ agents: usage, budget, limits, daily }) => {
          const accountWide = (
            <>
              <h2>This month ({budget.month}, UTC)</h2>
              <p>
                Spent by your agents: <strong>{againstBudget(budget.spentUsd, budget.monthlyUsd)}</strong>.{' '}
                <span class="hint">
                  Your monthly budget is set by an admin; an agent's by you (
                  <code>agent-service agents budget &lt;name&gt; &lt;usd&gt;</code>). Once one is spent, turns fail before calling the model
                  until it is raised or the month turns.
                </span>
              </p>
              <h2>Limits</h2>
              <LimitsTable limits={limits} />
            </>
          );
          if (usage.length === 0) {
            return (
              <>
                <EmptyState title="No agent, so no usage yet.">
                  <p>
                    <Link to="/deploy">Deploy an agent</Link> and talk to it: the tokens and cost of its replies add up here.
                  </p>
                </EmptyState>
                {accountWide}
              </>
            );
          }
          const sorted = [...usage].sort(
            (a, b) => b.costUsd - a.costUsd || b.inputTokens + b.outputTokens - (a.inputTokens + a.outputTokens),
          );
          return (
            <>
              <h2>Per agent</h2>
              <BarChart
                title="Cost per agent (USD)"
                bars={sorted.map((agent) => ({ label: agent.name, value: agent.costUsd }))}
                format={usd}
              />
              <BarChart
                title="Tokens per agent (in + out)"
                bars={sorted.map((agent) => ({ label: agent.name, value: agent.inputTokens + agent.outputTokens }))}
                format={(value) => value.toLocaleString()}
              />
              <table>
                <thead>
                  <tr>
                    <th scope="col">Agent</th>
                    <th scope="col">Sessions</th>
                    <th scope="col">Tokens in</th>
                    <th scope="col">Of them from cache</th>
                    <th scope="col">Tokens out</th>
                    <th scope="col">Cost</th>
                    <th scope="col">This month</th>
                  </tr>
                </thead>
                <tbody>
                  {sorted.map((agent) => (
                    <tr key={agent.name}>
                      <td>
                        <Link to={`/agents/${encodeURIComponent(agent.name)}/sessions`}>{agent.name}</Link>
                      </td>
                      <td>{agent.sessions}</td>
                      <td>{agent.inputTokens.toLocaleString()}</td>
                      <td>{agent.cacheReadTokens.toLocaleString()}</td>
                      <td>{agent.outputTokens.toLocaleString()}</td>
                      <td>{usd(agent.costUsd)}</td>
                      <td>{againstBudget(agent.monthSpentUsd, agent.monthlyBudgetUsd)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
              <h2>Per day (the last {DAYS} days, UTC)</h2>
              <BarChart
                title="Tokens per day"
                bars={daily.days.map((day) => ({ label: day.day, value: day.tokens }))}
                format={(value) => value.toLocaleString()}
              />
              <BarChart title="Cost per day (USD)" bars={daily.days.map((day) => ({ label: day.day, value: day.costUsd }))} format={usd} />
              <p class="hint">Costs are what providers reported, or the price table's estimate; replies without either count as $0.</p>
              {accountWide}
            </>
          );
        }}
      </LoadedView>
    </>
  );
}
