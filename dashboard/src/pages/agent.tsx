// One agent: its live bundle (highlighted JSONC), where MCP clients reach it, triggers with their URLs, commands, revisions
// with what serves (promote, rollback, a canary's traffic), its eval runs and the changes of it, and the ways on: its sessions,
// a new revision from the editor, deleting it.
import { useState } from 'preact/hooks';
import type { Client } from '@agent-service/sdk';
import { useClient } from '../auth/client-context.ts';
import { CommandsTable } from '../agents/commands-table.tsx';
import { ConnectSection } from '../agents/connect-section.tsx';
import { EvalRuns } from '../agents/eval-runs.tsx';
import { RevisionChanges } from '../agents/revision-changes.tsx';
import { RevisionDiff } from '../agents/revision-diff.tsx';
import { RevisionsList } from '../agents/revisions-list.tsx';
import { TrafficForm } from '../agents/traffic-form.tsx';
import { TriggersTable } from '../agents/triggers-table.tsx';
import { Link, navigate } from '../router.tsx';
import { JsoncView } from '../ui/jsonc-highlight.tsx';
import { ProblemView } from '../ui/problem-view.tsx';
import { LoadedView } from '../ui/states.tsx';
import { useLoad } from '../ui/use-load.ts';
import { When } from '../ui/when.tsx';

async function loadAgent(client: Client, name: string, signal: AbortSignal) {
  const [agent, listed] = await Promise.all([client.agents.retrieve(name, { signal }), client.agents.revisions(name, { signal })]);
  return { agent, listed };
}

export function AgentPage({ name }: { name: string }) {
  const client = useClient();
  const loaded = useLoad((signal) => loadAgent(client, name, signal), [client, name]);
  const [deleteError, setDeleteError] = useState<unknown>(undefined);
  const encoded = encodeURIComponent(name);

  const remove = async () => {
    if (!window.confirm(`Delete the agent ${name}? Its schedules and trigger URLs stop; its sessions stay readable.`)) return;
    try {
      await client.agents.delete(name);
      navigate('/agents');
    } catch (failure) {
      setDeleteError(failure);
    }
  };

  return (
    <>
      <div class="page-head">
        <h1>{name}</h1>
        <div class="toolbar">
          <Link to={`/agents/${encoded}/sessions`} class="button-link">
            Sessions
          </Link>
          <Link to={`/deploy?agent=${encoded}`} class="button-link secondary">
            Deploy a new revision
          </Link>
          <button type="button" class="danger" onClick={() => void remove()}>
            Delete agent
          </button>
        </div>
      </div>
      {deleteError !== undefined && <ProblemView error={deleteError} />}
      <LoadedView loaded={loaded} what="the agent">
        {({ agent, listed }) => (
          <>
            <dl class="facts">
              <dt>Model</dt>
              <dd>{agent.model ? `${agent.model.providerId} · ${agent.model.modelId}` : '—'}</dd>
              <dt>Live revision</dt>
              <dd>{agent.revision}</dd>
              {agent.latestRevision !== agent.revision && (
                <>
                  <dt>Latest revision</dt>
                  <dd>{agent.latestRevision} (not live)</dd>
                </>
              )}
              <dt>Deployed</dt>
              <dd>
                <When iso={agent.updatedAt} />
              </dd>
              <dt>Id</dt>
              <dd>
                <code>{agent.id}</code>
              </dd>
            </dl>
            {agent.warnings.length > 0 && (
              <section aria-labelledby="warnings-heading">
                <h2 id="warnings-heading">Warnings</h2>
                <ul>
                  {agent.warnings.map((warning) => (
                    <li key={warning}>{warning}</li>
                  ))}
                </ul>
              </section>
            )}
            <ConnectSection mcpUrl={agent.mcpUrl} a2aUrl={agent.a2aUrl} />
            <section aria-labelledby="triggers-heading">
              <h2 id="triggers-heading">Triggers</h2>
              <TriggersTable triggers={agent.triggers} />
            </section>
            <section aria-labelledby="commands-heading">
              <h2 id="commands-heading">Commands</h2>
              <CommandsTable commands={agent.commands} />
            </section>
            <section aria-labelledby="bundle-heading">
              <h2 id="bundle-heading">Bundle (revision {agent.revision}, live)</h2>
              <JsoncView text={JSON.stringify(agent.bundle, null, 2)} label={`Bundle of ${name}`} />
            </section>
            <section aria-labelledby="revisions-heading">
              <h2 id="revisions-heading">Revisions</h2>
              {/* Keyed by the newest change: once another is recorded, an earlier failure shown there is stale. */}
              <RevisionsList key={listed.changes[0]?.id} agentName={name} listed={listed} onChanged={loaded.reload} />
            </section>
            <section aria-labelledby="traffic-heading">
              <h2 id="traffic-heading">Traffic</h2>
              <TrafficForm key={listed.changes[0]?.id} agentName={name} listed={listed} onChanged={loaded.reload} />
            </section>
            <section aria-labelledby="evals-heading">
              <h2 id="evals-heading">Evals</h2>
              <EvalRuns agentName={name} />
            </section>
            <section aria-labelledby="changes-heading">
              <h2 id="changes-heading">Changes</h2>
              <RevisionChanges changes={listed.changes} />
            </section>
            <section aria-labelledby="diff-heading">
              <h2 id="diff-heading">Compare revisions</h2>
              <RevisionDiff agentName={name} revisions={listed.revisions} />
            </section>
          </>
        )}
      </LoadedView>
    </>
  );
}
