// An agent's eval runs, newest first, each linked to its report: the revision it ran, how it stands and
// what it cost. Runs are started from the CLI, the SDK or the API (docs/evals.md); this lists them.
import { useClient } from '../auth/client-context.ts';
import { StatusBadge, passedText } from '../evals/badges.tsx';
import { Link } from '../router.tsx';
import { EmptyState, LoadedView } from '../ui/states.tsx';
import { usd } from '../ui/time.ts';
import { useLoad } from '../ui/use-load.ts';
import { When } from '../ui/when.tsx';

export function EvalRuns({ agentName }: { agentName: string }) {
  const client = useClient();
  const loaded = useLoad((signal) => client.evals.list(agentName, { signal }), [client, agentName]);
  return (
    <LoadedView loaded={loaded} what="eval runs">
      {({ runs }) =>
        runs.length === 0 ? (
          <EmptyState title="No eval run yet.">
            <p>
              Run a revision against cases before promoting it:{' '}
              <code>{`agent-service eval run ${agentName} --cases cases.jsonl --wait`}</code>.
            </p>
          </EmptyState>
        ) : (
          <table>
            <thead>
              <tr>
                <th scope="col">Run</th>
                <th scope="col">Revision</th>
                <th scope="col">Status</th>
                <th scope="col">Result</th>
                <th scope="col">Cost</th>
                <th scope="col">Started</th>
              </tr>
            </thead>
            <tbody>
              {runs.map((run) => (
                <tr key={run.id}>
                  <td>
                    <Link to={`/evals/${run.id}`}>{run.id}</Link>
                  </td>
                  <td>{run.revision}</td>
                  <td>
                    <StatusBadge status={run.status} />
                  </td>
                  <td>{passedText(run.summary)}</td>
                  <td>{usd(run.summary.costUsd)}</td>
                  <td>
                    <When iso={run.createdAt} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )
      }
    </LoadedView>
  );
}
