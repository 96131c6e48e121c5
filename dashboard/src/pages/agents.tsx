// Your agents: name, model, current revision, last deploy; and the way to deploy one.
import { useClient } from '../auth/client-context.ts';
import { Link } from '../router.tsx';
import { EmptyState, LoadedView } from '../ui/states.tsx';
import { useLoad } from '../ui/use-load.ts';
import { When } from '../ui/when.tsx';

export function AgentsPage() {
  const client = useClient();
  const loaded = useLoad((signal) => client.agents.list({ signal }), [client]);
  return (
    <>
      <div class="page-head">
        <h1>Agents</h1>
        <Link to="/deploy" class="button-link">
          Deploy an agent
        </Link>
      </div>
      <LoadedView loaded={loaded} what="agents">
        {({ agents }) =>
          agents.length === 0 ? (
            <EmptyState title="No agent yet.">
              <p>
                <Link to="/deploy">Deploy a bundle</Link> (JSONC: a name, a model, instructions), or from a terminal with{' '}
                <code>agent-service deploy service.jsonc</code>.
              </p>
            </EmptyState>
          ) : (
            <table>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Model</th>
                  <th scope="col">Revision</th>
                  <th scope="col">Deployed</th>
                </tr>
              </thead>
              <tbody>
                {agents.map((agent) => (
                  <tr key={agent.id}>
                    <td>
                      <Link to={`/agents/${encodeURIComponent(agent.name)}`}>{agent.name}</Link>
                    </td>
                    <td>{agent.model ? `${agent.model.providerId} · ${agent.model.modelId}` : '—'}</td>
                    <td>{agent.revision}</td>
                    <td>
                      <When iso={agent.updatedAt} />
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
