// The recent changes of what serves an agent, newest first: deploys, staged deploys, promotes, rollbacks
// and traffic shares, each with the live revision before and after and the key that made it (the Keys
// page names it). The service lists the last 100; the newest are what a person looks for here.
import type { RevisionList } from '@agent-service/sdk';
import { When } from '../ui/when.tsx';

const SHOWN = 20;

type Change = RevisionList['changes'][number];

const KIND_WORDS: Record<Change['kind'], string> = {
  deployed: 'deployed',
  staged: 'staged',
  promoted: 'promoted',
  rolled_back: 'rolled back',
  traffic: 'traffic',
};

function shares(traffic: Change['traffic']): string {
  const entries = Object.entries(traffic).sort(([a], [b]) => Number(a) - Number(b));
  return entries.length ? entries.map(([revision, percent]) => `revision ${revision}: ${percent}%`).join(', ') : '—';
}

export function RevisionChanges({ changes }: { changes: RevisionList['changes'] }) {
  if (changes.length === 0) return <p>No change recorded yet.</p>;
  const shown = changes.slice(0, SHOWN);
  return (
    <>
      <table>
        <thead>
          <tr>
            <th scope="col">Change</th>
            <th scope="col">Revision</th>
            <th scope="col">Live</th>
            <th scope="col">Canary</th>
            <th scope="col">Key</th>
            <th scope="col">When</th>
          </tr>
        </thead>
        <tbody>
          {shown.map((change) => (
            <tr key={change.id}>
              <td>{KIND_WORDS[change.kind]}</td>
              <td>{change.revision ?? '—'}</td>
              <td>{change.liveBefore === change.liveAfter ? change.liveAfter : `${change.liveBefore ?? '—'} → ${change.liveAfter}`}</td>
              <td>{shares(change.traffic)}</td>
              {change.keyId ? (
                <td>
                  <code>{change.keyId}</code>
                </td>
              ) : (
                <td class="muted">—</td>
              )}
              <td>
                <When iso={change.at} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {changes.length > shown.length && (
        <p class="hint">
          The newest {shown.length} of {changes.length} changes.
        </p>
      )}
    </>
  );
}
