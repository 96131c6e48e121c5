// An agent's sessions, newest first: status, cost, when; older ones page by page; and a button that
// opens a new one. The first page refreshes every few seconds; older pages stay as loaded.
import { useState } from 'preact/hooks';
import type { Page, SessionView } from '@agent-service/sdk';
import { useClient } from '../auth/client-context.ts';
import { Link, navigate } from '../router.tsx';
import { ProblemView } from '../ui/problem-view.tsx';
import { EmptyState, LoadedView } from '../ui/states.tsx';
import { usd } from '../ui/time.ts';
import { useInterval } from '../ui/use-interval.ts';
import { useLoad } from '../ui/use-load.ts';
import { When } from '../ui/when.tsx';

const REFRESH_MS = 5000;
const PAGE_SIZE = 50;

export function SessionsPage({ agent }: { agent: string }) {
  const client = useClient();
  const loaded = useLoad(async (signal) => await client.sessions.list(agent, { limit: PAGE_SIZE }, { signal }), [client, agent]);
  useInterval(loaded.reload, REFRESH_MS);
  const [error, setError] = useState<unknown>(undefined);
  const [older, setOlder] = useState<{ items: SessionView[]; last: Page<SessionView> } | undefined>(undefined);

  const loadOlder = async (last: Page<SessionView>) => {
    setError(undefined);
    try {
      const next = await last.getNextPage();
      setOlder({ items: [...(older?.items ?? []), ...next.items], last: next });
    } catch (failure) {
      setError(failure);
    }
  };

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
        {(page) => {
          const shown = new Set(page.items.map((session) => session.id));
          const items = [...page.items, ...(older?.items ?? []).filter((session) => !shown.has(session.id))];
          const last = older?.last ?? page;
          return items.length === 0 ? (
            <EmptyState title="No session yet.">
              <p>
                Open a <strong>New session</strong> and write to the agent, or start one from a trigger, the CLI (
                <code>agent-service chat {agent}</code>) or the SDK.
              </p>
            </EmptyState>
          ) : (
            <>
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
                  {items.map((session) => (
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
              {last.hasNextPage() && (
                <button type="button" class="secondary" onClick={() => void loadOlder(last)}>
                  Show older sessions
                </button>
              )}
            </>
          );
        }}
      </LoadedView>
    </>
  );
}
