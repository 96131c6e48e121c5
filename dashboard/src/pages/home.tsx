// The overview: what waits for the person (questions) and what their agents are doing now (sessions
// running or waiting), refreshed every few seconds. Sessions are read per agent, for the first
// agents only, so a large account stays one quick look.
import type { ApprovalView, Client, SessionView } from '@agent-service/sdk';
import { useClient } from '../auth/client-context.ts';
import { Link } from '../router.tsx';
import { EmptyState, LoadedView } from '../ui/states.tsx';
import { timeLeft, usd } from '../ui/time.ts';
import { useInterval } from '../ui/use-interval.ts';
import { useLoad } from '../ui/use-load.ts';
import { When } from '../ui/when.tsx';

const REFRESH_MS = 5000;
const AGENTS_LOOKED_AT = 25;

interface Overview {
  waiting: ApprovalView[];
  agentCount: number;
  active: { agentName: string; session: SessionView }[];
}

async function loadOverview(client: Client, signal: AbortSignal): Promise<Overview> {
  const [waitingPage, { agents }] = await Promise.all([
    client.approvals.list({ status: 'unanswered', limit: 100 }, { signal }),
    client.agents.list({ signal }),
  ]);
  const recent = [...agents].sort((a, b) => Date.parse(b.updatedAt) - Date.parse(a.updatedAt)).slice(0, AGENTS_LOOKED_AT);
  const pages = await Promise.all(recent.map((agent) => client.sessions.list(agent.name, { limit: 20 }, { signal })));
  const active = pages
    .flatMap((page, index) => page.items.map((session) => ({ agentName: recent[index]!.name, session })))
    .filter(({ session }) => session.status !== 'idle')
    .sort((a, b) => Date.parse(b.session.updatedAt) - Date.parse(a.session.updatedAt));
  const waiting = [...waitingPage.items].sort((a, b) => Date.parse(a.expiresAt) - Date.parse(b.expiresAt));
  return { waiting, agentCount: agents.length, active };
}

export function HomePage() {
  const client = useClient();
  const overview = useLoad((signal) => loadOverview(client, signal), [client]);
  useInterval(overview.reload, REFRESH_MS);
  return (
    <>
      <h1>Overview</h1>
      <LoadedView loaded={overview} what="the overview">
        {({ waiting, agentCount, active }) => (
          <>
            <section aria-labelledby="overview-waiting">
              <h2 id="overview-waiting">Waiting for you ({waiting.length})</h2>
              {waiting.length === 0 ? (
                <p>No question waits for an answer.</p>
              ) : (
                <ul>
                  {waiting.slice(0, 5).map((approval) => (
                    <li key={approval.id}>
                      <Link to="/approvals">{approval.question}</Link> ({timeLeft(approval.expiresAt)})
                    </li>
                  ))}
                  {waiting.length > 5 && (
                    <li>
                      <Link to="/approvals">and {waiting.length - 5} more in the inbox</Link>
                    </li>
                  )}
                </ul>
              )}
            </section>
            <section aria-labelledby="overview-active">
              <h2 id="overview-active">Active sessions ({active.length})</h2>
              {agentCount === 0 ? (
                <EmptyState title="No agent yet.">
                  <p>
                    <Link to="/deploy">Deploy your first agent</Link>, then talk to it from its sessions page.
                  </p>
                </EmptyState>
              ) : active.length === 0 ? (
                <p>
                  None of your {agentCount} {agentCount === 1 ? 'agent is' : 'agents are'} running a turn.{' '}
                  <Link to="/agents">See your agents</Link>.
                </p>
              ) : (
                <table>
                  <thead>
                    <tr>
                      <th scope="col">Agent</th>
                      <th scope="col">Session</th>
                      <th scope="col">Status</th>
                      <th scope="col">Cost</th>
                      <th scope="col">Last activity</th>
                    </tr>
                  </thead>
                  <tbody>
                    {active.map(({ agentName, session }) => (
                      <tr key={session.id}>
                        <td>
                          <Link to={`/agents/${encodeURIComponent(agentName)}`}>{agentName}</Link>
                        </td>
                        <td>
                          <Link to={`/sessions/${session.id}`}>{session.id}</Link>
                        </td>
                        <td>
                          <span class="badge warn">{session.status}</span>
                        </td>
                        <td>{usd(session.usage.costUsd)}</td>
                        <td>
                          <When iso={session.updatedAt} />
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              )}
            </section>
          </>
        )}
      </LoadedView>
    </>
  );
}
