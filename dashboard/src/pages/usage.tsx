// Usage per agent: tokens and USD cost summed over each agent's sessions (the session totals the
// API keeps), and per day over the last two weeks (from the replies, usage/daily-usage.ts), as charts
// and a table. Sessions are read up to a bound, and the page says when it stopped short.
import type { Client, SessionView } from '@agent-service/sdk';
import { useClient } from '../auth/client-context.ts';
import { Link } from '../router.tsx';
import { BarChart } from '../usage/bar-chart.tsx';
import { DAYS, dailyUsage, type DailyUsage } from '../usage/daily-usage.ts';
import { EmptyState, LoadedView } from '../ui/states.tsx';
import { usd } from '../ui/time.ts';
import { useLoad } from '../ui/use-load.ts';

const SESSIONS_PER_AGENT = 500;

interface AgentUsage {
  name: string;
  sessions: number;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
  /** More sessions exist than were read. */
  partial: boolean;
}

async function loadUsage(client: Client, signal: AbortSignal): Promise<{ agents: AgentUsage[]; daily: DailyUsage }> {
  const { agents } = await client.agents.list({ signal });
  const sessions: SessionView[] = [];
  const perAgent = await Promise.all(
    agents.map(async (agent) => {
      const usage: AgentUsage = { name: agent.name, sessions: 0, inputTokens: 0, outputTokens: 0, costUsd: 0, partial: false };
      for await (const session of client.sessions.list(agent.name, { limit: 100 }, { signal })) {
        if (usage.sessions === SESSIONS_PER_AGENT) {
          usage.partial = true;
          break;
        }
        usage.sessions++;
        sessions.push(session);
        usage.inputTokens += session.usage.inputTokens ?? 0;
        usage.outputTokens += session.usage.outputTokens ?? 0;
        usage.costUsd += session.usage.costUsd ?? 0;
      }
      return usage;
    }),
  );
  return { agents: perAgent, daily: await dailyUsage(client, sessions, signal) };
}

export function UsagePage() {
  const client = useClient();
  const loaded = useLoad((signal) => loadUsage(client, signal), [client]);
  return (
    <>
      <h1>Usage</h1>
      <LoadedView loaded={loaded} what="usage">
        {({ agents: usage, daily }) => {
          if (usage.length === 0) {
            return (
              <EmptyState title="No agent, so no usage yet.">
                <p>
                  <Link to="/deploy">Deploy an agent</Link> and talk to it: the tokens and cost of its replies add up here.
                </p>
              </EmptyState>
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
                    <th scope="col">Tokens out</th>
                    <th scope="col">Cost</th>
                  </tr>
                </thead>
                <tbody>
                  {sorted.map((agent) => (
                    <tr key={agent.name}>
                      <td>
                        <Link to={`/agents/${encodeURIComponent(agent.name)}/sessions`}>{agent.name}</Link>
                      </td>
                      <td>
                        {agent.sessions}
                        {agent.partial && ' (the latest only)'}
                      </td>
                      <td>{agent.inputTokens.toLocaleString()}</td>
                      <td>{agent.outputTokens.toLocaleString()}</td>
                      <td>{usd(agent.costUsd)}</td>
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
              {daily.partial && <p class="hint">Only the most recently active sessions were read for the days.</p>}
              <p class="hint">Costs are what providers reported, or the price table's estimate; replies without either count as $0.</p>
            </>
          );
        }}
      </LoadedView>
    </>
  );
}
