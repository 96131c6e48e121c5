// Tool servers: the built-in ones and the remote MCP servers the person registered, each marked which
// it is; registering one (id, URL, headers as rows, description), deleting one, and checking one
// (connect and list its tools now). Registering connects to nothing, so the check is where a wrong URL
// or header shows, before a deploy names the id.
import { useState } from 'preact/hooks';
import type { ToolServerView } from '@agent-service/sdk';
import { useClient } from '../auth/client-context.ts';
import { HeaderRows, headersOf, type HeaderRow } from '../tool-servers/header-rows.tsx';
import { ServerCheck } from '../tool-servers/server-check.tsx';
import { ConfirmButton } from '../ui/confirm-button.tsx';
import { ProblemView } from '../ui/problem-view.tsx';
import { EmptyState, LoadedView } from '../ui/states.tsx';
import { useAction } from '../ui/use-action.ts';
import { useLoad } from '../ui/use-load.ts';
import { When } from '../ui/when.tsx';

type Remote = Extract<ToolServerView, { kind: 'remote' }>;

export function ToolServersPage() {
  const client = useClient();
  const loaded = useLoad((signal) => client.mcps.list({ signal }), [client]);
  const [id, setId] = useState('');
  const [url, setUrl] = useState('');
  const [rows, setRows] = useState<HeaderRow[]>([]);
  const [description, setDescription] = useState('');
  const [saved, setSaved] = useState<string | undefined>(undefined);
  const [open, setOpen] = useState<string | undefined>(undefined);
  const { error, run } = useAction();

  const save = (event: Event) => {
    event.preventDefault();
    setSaved(undefined);
    return run(async () => {
      const headers = headersOf(rows);
      const stored = await client.mcps.put(id.trim(), {
        url: url.trim(),
        headers,
        ...(description.trim() ? { description: description.trim() } : {}),
      });
      setSaved(stored.id);
      setId('');
      setUrl('');
      setRows([]);
      setDescription('');
      // A replaced server's last check may describe its old URL.
      if (open === stored.id) setOpen(undefined);
      loaded.reload();
    });
  };

  const remove = (serverId: string) =>
    run(async () => {
      await client.mcps.delete(serverId);
      if (open === serverId) setOpen(undefined);
      loaded.reload();
    });

  const checkToggle = (serverId: string, label: string) => (
    <button
      type="button"
      class="secondary small"
      aria-expanded={open === serverId}
      aria-label={`${open === serverId ? 'Hide' : label} ${serverId}`}
      onClick={() => setOpen(open === serverId ? undefined : serverId)}
    >
      {open === serverId ? 'Hide' : label}
    </button>
  );

  return (
    <>
      <h1>Tool servers</h1>
      <p>
        A bundle names tool servers in <code>mcps</code>. The built-in ones run inside the service; a remote MCP server you register here is
        connected to when an agent naming it is deployed, and its tools are kept with that revision (deploy again to pick up new ones).
      </p>
      <form class="card" onSubmit={(event) => void save(event)}>
        <h2>Register a remote MCP server</h2>
        <div class="row">
          <div>
            <label for="mcp-id">Id</label>
            <input
              id="mcp-id"
              placeholder="tickets"
              autoComplete="off"
              spellcheck={false}
              required
              aria-describedby="mcp-id-help"
              value={id}
              onInput={(event) => setId(event.currentTarget.value)}
            />
          </div>
          <div>
            <label for="mcp-url">URL</label>
            <input
              id="mcp-url"
              type="url"
              placeholder="https://mcp.example.com/mcp"
              required
              value={url}
              onInput={(event) => setUrl(event.currentTarget.value)}
            />
          </div>
        </div>
        <p id="mcp-id-help" class="hint">
          How bundles name it: a lower-case letter, then letters, digits, <code>_</code> or <code>-</code>. Saving an id you have replaces
          that server.
        </p>
        <HeaderRows rows={rows} onChange={setRows} />
        <label for="mcp-description">Description (optional)</label>
        <input id="mcp-description" value={description} onInput={(event) => setDescription(event.currentTarget.value)} />
        <button type="submit">Save server</button>
        <p role="status">{saved && `Saved ${saved}. Check it below to see its tools.`}</p>
      </form>
      {error !== undefined && <ProblemView error={error} />}
      <LoadedView loaded={loaded} what="tool servers">
        {(servers) => {
          const remote = servers.filter((server): server is Remote => server.kind === 'remote');
          return (
            <>
              <h2>Remote MCP servers</h2>
              {remote.length === 0 ? (
                <EmptyState title="No remote MCP server registered.">
                  <p>
                    Register one above, then name its id in a bundle's <code>mcps</code> beside the built-in ones.
                  </p>
                </EmptyState>
              ) : (
                <ul class="cards">
                  {remote.map((server) => (
                    <li key={server.id} class="card">
                      <p class="copy-row">
                        <code>{server.id}</code>
                        <span class="badge">remote</span>
                      </p>
                      <dl class="facts">
                        <dt>URL</dt>
                        <dd>
                          <code>{server.url}</code>
                        </dd>
                        <dt>Headers</dt>
                        {/* Sorted: the service keeps them as an object, in an order of its own. */}
                        <dd>
                          {server.headerNames.length ? [...server.headerNames].sort((a, b) => a.localeCompare(b)).join(', ') : 'none'}
                        </dd>
                        {server.description && (
                          <>
                            <dt>Description</dt>
                            <dd>{server.description}</dd>
                          </>
                        )}
                        <dt>Updated</dt>
                        <dd>
                          <When iso={server.updatedAt} />
                        </dd>
                      </dl>
                      <div class="toolbar">
                        {checkToggle(server.id, 'Check')}
                        <ConfirmButton
                          label={`Delete tool server ${server.id}`}
                          question={`Delete the tool server ${server.id}? Agents deployed with it keep its tools, but their calls fail until it is registered again.`}
                          onConfirmed={() => void remove(server.id)}
                        >
                          Delete
                        </ConfirmButton>
                      </div>
                      {open === server.id && <ServerCheck id={server.id} />}
                    </li>
                  ))}
                </ul>
              )}
              <h2>Built-in</h2>
              <ul class="cards">
                {servers
                  .filter((server) => server.kind === 'builtin')
                  .map((server) => (
                    <li key={server.id} class="card">
                      <p class="copy-row">
                        <code>{server.id}</code>
                        <span class="badge muted">built-in</span>
                      </p>
                      <p>{server.description}</p>
                      <div class="toolbar">{checkToggle(server.id, 'Show tools')}</div>
                      {open === server.id && <ServerCheck id={server.id} />}
                    </li>
                  ))}
              </ul>
            </>
          );
        }}
      </LoadedView>
    </>
  );
}
