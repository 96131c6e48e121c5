// An agent's revisions, newest first; one is fetched and shown as highlighted JSONC on request (the
// list carries no bundles).
import { useState } from 'preact/hooks';
import type { RevisionList } from '@agent-service/sdk';
import { useClient } from '../auth/client-context.ts';
import { JsoncView } from '../ui/jsonc-highlight.tsx';
import { LoadedView } from '../ui/states.tsx';
import { useLoad } from '../ui/use-load.ts';
import { When } from '../ui/when.tsx';

interface Props {
  agentName: string;
  revisions: RevisionList['revisions'];
  current: number;
}

export function RevisionsList({ agentName, revisions, current }: Props) {
  const [shown, setShown] = useState<number | undefined>(undefined);
  const sorted = [...revisions].sort((a, b) => b.revision - a.revision);
  return (
    <>
      <table>
        <thead>
          <tr>
            <th scope="col">Revision</th>
            <th scope="col">Deployed</th>
            <th scope="col">Warnings</th>
            <th scope="col">
              <span class="visually-hidden">Show</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {sorted.map((revision) => (
            <tr key={revision.revision}>
              <td>
                {revision.revision}
                {revision.revision === current && <span class="badge ok">current</span>}
              </td>
              <td>
                <When iso={revision.createdAt} />
              </td>
              <td>{revision.warnings.length}</td>
              <td>
                <button
                  type="button"
                  class="secondary small"
                  aria-expanded={shown === revision.revision}
                  onClick={() => setShown(shown === revision.revision ? undefined : revision.revision)}
                >
                  {shown === revision.revision ? 'Hide' : 'Show'} revision {revision.revision}
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {shown !== undefined && <RevisionBundle agentName={agentName} revision={shown} />}
    </>
  );
}

function RevisionBundle({ agentName, revision }: { agentName: string; revision: number }) {
  const client = useClient();
  const loaded = useLoad((signal) => client.agents.revision(agentName, revision, { signal }), [client, agentName, revision]);
  return (
    <LoadedView loaded={loaded} what={`revision ${revision}`}>
      {(found) => <JsoncView text={JSON.stringify(found.bundle, null, 2)} label={`Bundle of revision ${revision}`} />}
    </LoadedView>
  );
}
