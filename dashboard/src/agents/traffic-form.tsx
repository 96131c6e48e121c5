// A canary: a share of new sessions for a revision other than the live one, which gets the rest. The
// service's body replaces every share, so the form keeps the other revisions' shares and sets this one's
// (0 drops it); End canary sends `{}`. Sessions already started keep their revision either way.
import { useState } from 'preact/hooks';
import type { RevisionList } from '@agent-service/sdk';
import { useClient } from '../auth/client-context.ts';
import { ProblemView } from '../ui/problem-view.tsx';
import { useAction } from '../ui/use-action.ts';

interface Props {
  agentName: string;
  listed: RevisionList;
  /** After the shares changed: the page reads the agent again. */
  onChanged(): void;
}

/** "Revision 3 (live) gets 90% of new sessions; revision 4 10%." */
function describeShares(listed: Pick<RevisionList, 'live' | 'traffic'>): string {
  const shares = Object.entries(listed.traffic).sort(([a], [b]) => Number(a) - Number(b));
  const rest = 100 - shares.reduce((sum, [, percent]) => sum + percent, 0);
  const others = shares.map(([revision, percent]) => `; revision ${revision} ${percent}%`).join('');
  return `Revision ${listed.live} (live) gets ${rest}% of new sessions${others}.`;
}

export function TrafficForm({ agentName, listed, onChanged }: Props) {
  const client = useClient();
  const { error, run } = useAction();
  const others = listed.revisions.map((revision) => revision.revision).filter((revision) => revision !== listed.live);
  const [revision, setRevision] = useState<number | undefined>(undefined);
  const [percent, setPercent] = useState('10');
  // The newest revision that is not live, until another is chosen (and again if the chosen one went live).
  const chosen = revision !== undefined && others.includes(revision) ? revision : others[0];
  const canary = Object.keys(listed.traffic).length > 0;

  if (chosen === undefined) return <p>Only the live revision exists: deploy another (staged or not) to send it a share of new sessions.</p>;

  const save = (event: Event) => {
    event.preventDefault();
    return run(async () => {
      await client.agents.setTraffic(agentName, { ...listed.traffic, [chosen]: Number(percent) });
      onChanged();
    });
  };

  const end = () =>
    run(async () => {
      await client.agents.setTraffic(agentName, {});
      onChanged();
    });

  return (
    <form onSubmit={(event) => void save(event)}>
      <p role="status">{describeShares(listed)}</p>
      <div class="row compact">
        <div>
          <label for="traffic-revision">Revision</label>
          <select id="traffic-revision" value={chosen} onChange={(event) => setRevision(Number(event.currentTarget.value))}>
            {others.map((number) => (
              <option key={number} value={number}>
                {number}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label for="traffic-percent">Percent</label>
          <input
            id="traffic-percent"
            type="number"
            min={0}
            max={100}
            step={1}
            required
            aria-describedby="traffic-help"
            value={percent}
            onInput={(event) => setPercent(event.currentTarget.value)}
          />
        </div>
        <button type="submit">Set traffic</button>
        {canary && (
          <button type="button" class="secondary" onClick={() => void end()}>
            End canary
          </button>
        )}
      </div>
      <p id="traffic-help" class="hint">
        The other revisions keep their shares; 0 drops this one. At most 100% together, over at most 5 revisions.
      </p>
      {error !== undefined && <ProblemView error={error} />}
    </form>
  );
}
