// An agent's sessions, newest first: status, cost, when; and a button that opens a new one.
import { useState } from 'preact/hooks';
import { useClient } from '../auth/client-context.ts';
import { Link, navigate } from '../router.tsx';
import { ProblemView } from '../ui/problem-view.tsx';
import { EmptyState, LoadedView } from '../ui/states.tsx';
import { usd } from '../ui/time.ts';
import { useInterval } from '../ui/use-interval.ts';
import { useLoad } from '../ui/use-load.ts';
import { When } from '../ui/when.tsx';

const REFRESH_MS = 5000;

export function SessionsPage({ agent }: { agent: string }) {
  const client = useClient();
  const loaded = useLoad(async (signal) => await client.sessions.list(agent, { limit: 50 }, { signal }), [client, agent]);
  useInterval(loaded.reload, REFRESH_MS);
  const [error, setError] = useState<unknown>(undefined);

  const open = async () => {
    setError(undefined);
    try {
      const { id } = await client.sessions.create(agent);
      navigate(`/sessions/${id}`);
    } catch (failure) {
      setError(failure);
    }
  };

  return (
    <>
      <div class="page-head">
        <h1>
          Sessions of <Link to={`/agents/${encodeURIComponent(agent)}`}>{agent}</Link>
        </h1>
        <button type="button" onClick={() => void open()}>
          New session
        </button>
      </div>
      {error !== undefined && <ProblemView error={error} />}
      <LoadedView loaded={loaded} what="sessions">
        {(page) =>
          page.items.length === 0 ? (
            <EmptyState title="No session yet.">
              <p>
                Open a <strong>New session</strong> and write to the agent, or start one from a trigger, the CLI (
                <code>agent-service chat {agent}</code>) or the SDK.
              </p>
            </EmptyState>
          ) : (
            <table>
              <thead>
                <tr>
                  <th scope="col">Session</th>
                  <th scope="col">Status</th>
                  <th scope="col">Cost</th>
                  <th scope="col">Tokens</th>
                  <th scope="col">Last activity</th>
                </tr>
              </thead>
              <tbody>
                {page.items.map((session) => (
                  <tr key={session.id}>
                    <td>
                      <Link to={`/sessions/${session.id}`}>{session.id}</Link>
                      {session.forkedFrom && <span class="badge muted">fork</span>}
                    </td>
                    <td>
                      <span class={`badge ${session.status === 'idle' ? 'muted' : 'warn'}`}>{session.status}</span>
                    </td>
                    <td>{usd(session.usage.costUsd)}</td>
                    <td>{(session.usage.inputTokens ?? 0) + (session.usage.outputTokens ?? 0)}</td>
                    <td>
                      <When iso={session.updatedAt} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )
        }
      </LoadedView>
    </>
  );
}
