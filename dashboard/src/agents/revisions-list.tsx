// An agent's revisions, newest first; one is shown as highlighted JSONC on request.
import { useState } from 'preact/hooks';
import type { RevisionList } from '@agent-service/sdk';
import { JsoncView } from '../ui/jsonc-highlight.tsx';
import { When } from '../ui/when.tsx';

export function RevisionsList({ revisions, current }: { revisions: RevisionList['revisions']; current: number }) {
  const [shown, setShown] = useState<number | undefined>(undefined);
  const sorted = [...revisions].sort((a, b) => b.revision - a.revision);
  const selected = sorted.find((revision) => revision.revision === shown);
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
      {selected && <JsoncView text={JSON.stringify(selected.bundle, null, 2)} label={`Bundle of revision ${selected.revision}`} />}
    </>
  );
}
