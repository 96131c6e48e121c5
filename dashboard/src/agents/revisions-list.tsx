// An agent's revisions, newest first, with what each serves: live, a canary with its share of new
// sessions, staged (it has served no session) or retired (it served once: live, or a share). Promote makes one live and Roll back returns
// to the revision live before; both ask first, since new sessions (and triggers) move at once. One
// revision is fetched and shown as highlighted JSONC on request (the list carries no bundles).
import { useState } from 'preact/hooks';
import type { RevisionList } from '@agent-service/sdk';
import { useClient } from '../auth/client-context.ts';
import { JsoncView } from '../ui/jsonc-highlight.tsx';
import { ProblemView } from '../ui/problem-view.tsx';
import { LoadedView } from '../ui/states.tsx';
import { useAction } from '../ui/use-action.ts';
import { useLoad } from '../ui/use-load.ts';
import { When } from '../ui/when.tsx';

type Revision = RevisionList['revisions'][number];

interface Props {
  agentName: string;
  listed: RevisionList;
  /** After a promote or a rollback: the page reads the agent again. */
  onChanged(): void;
}

const STATE_BADGE: Record<Revision['state'], string> = { live: 'badge ok', canary: 'badge warn', staged: 'badge', retired: 'badge muted' };

function StateBadge({ revision }: { revision: Revision }) {
  return (
    <span class={STATE_BADGE[revision.state]}>{revision.state === 'canary' ? `canary ${revision.trafficPercent}%` : revision.state}</span>
  );
}

/**
 * The revision a rollback returns to, as the service picks it: the one live before the change that made
 * the live revision live. Undefined when the changes listed do not say (the service still knows).
 */
function rollbackTarget(listed: RevisionList): number | undefined {
  const made = listed.changes.find(
    (change) => change.liveAfter === listed.live && change.liveBefore !== null && change.liveBefore !== change.liveAfter,
  );
  return made?.liveBefore ?? undefined;
}

export function RevisionsList({ agentName, listed, onChanged }: Props) {
  const client = useClient();
  const { error, run } = useAction();
  const [shown, setShown] = useState<number | undefined>(undefined);
  const sorted = [...listed.revisions].sort((a, b) => b.revision - a.revision);
  const target = rollbackTarget(listed);

  const promote = (revision: number) => {
    const question = `Make revision ${revision} of ${agentName} live? New sessions start on it and a canary ends; sessions under way keep their revision.`;
    if (!window.confirm(question)) return;
    void run(async () => {
      await client.agents.promote(agentName, revision);
      onChanged();
    });
  };

  const rollback = () => {
    const question = `Roll ${agentName} back to ${target === undefined ? 'the revision live before' : `revision ${target}`}? New sessions start on it.`;
    if (!window.confirm(question)) return;
    void run(async () => {
      await client.agents.rollback(agentName);
      onChanged();
    });
  };

  return (
    <>
      {/* One revision has nothing to roll back to; past that, the service says when there is nothing. */}
      {sorted.length > 1 && (
        <div class="toolbar">
          <button type="button" class="secondary" onClick={rollback}>
            {target === undefined ? 'Roll back' : `Roll back to revision ${target}`}
          </button>
        </div>
      )}
      {error !== undefined && <ProblemView error={error} />}
      <table>
        <thead>
          <tr>
            <th scope="col">Revision</th>
            <th scope="col">State</th>
            <th scope="col">Deployed</th>
            <th scope="col">Warnings</th>
            <th scope="col">
              <span class="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {sorted.map((revision) => (
            <tr key={revision.revision}>
              <td>{revision.revision}</td>
              <td>
                <StateBadge revision={revision} />
              </td>
              <td>
                <When iso={revision.createdAt} />
              </td>
              <td>{revision.warnings.length}</td>
              <td>
                <div class="toolbar">
                  {revision.state !== 'live' && (
                    <button type="button" class="small" onClick={() => promote(revision.revision)}>
                      Promote revision {revision.revision}
                    </button>
                  )}
                  <button
                    type="button"
                    class="secondary small"
                    aria-expanded={shown === revision.revision}
                    onClick={() => setShown(shown === revision.revision ? undefined : revision.revision)}
                  >
                    {shown === revision.revision ? 'Hide' : 'Show'} revision {revision.revision}
                  </button>
                </div>
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
