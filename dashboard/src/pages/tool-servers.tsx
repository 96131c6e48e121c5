// Tool servers: the built-in ones and the remote MCP servers the person registered, each marked which
// it is; registering one (id, URL, headers as rows, description, or OAuth sign-in), deleting one, and
// checking one (connect and list its tools now). Registering connects to nothing, so the check is where
// a wrong URL or header shows, before a deploy names the id. A server that signs in with OAuth shows the
// person's sign-in to it: Connect opens its sign-in in a new tab (the callback page there says it can be
// closed) and this page follows until it is connected; Disconnect signs out.
import { useEffect, useState } from 'preact/hooks';
import type { McpAuthBody, ToolServerView } from '@agent-service/sdk';
import { useClient } from '../auth/client-context.ts';
import { HeaderRows, headersOf, type HeaderRow } from '../tool-servers/header-rows.tsx';
import { ServerCheck } from '../tool-servers/server-check.tsx';
import { SignInFacts, signInStatus } from '../tool-servers/sign-in.tsx';
import { ConfirmButton } from '../ui/confirm-button.tsx';
import { ProblemView } from '../ui/problem-view.tsx';
import { EmptyState, LoadedView } from '../ui/states.tsx';
import { useAction } from '../ui/use-action.ts';
import { useInterval } from '../ui/use-interval.ts';
import { useLoad } from '../ui/use-load.ts';
import { When } from '../ui/when.tsx';

type Remote = Extract<ToolServerView, { kind: 'remote' }>;

/** How often the list is read again while a sign-in is under way in another tab. */
const SIGN_IN_POLL_MS = 2000;

/** `auth` from the form: scopes separated by spaces, the client secret as the name of a secret (or its reference written out). */
function authOf(scopes: string, clientId: string, clientSecret: string): McpAuthBody {
  const scopeList = scopes.split(/\s+/).filter(Boolean);
  const secretName = clientSecret.trim().replace(/^\{\{\s*secrets\.(.*?)\s*\}\}$/, '$1');
  return {
    type: 'oauth',
    ...(scopeList.length ? { scopes: scopeList } : {}),
    ...(clientId.trim() ? { clientId: clientId.trim() } : {}),
    ...(secretName ? { clientSecret: `{{secrets.${secretName}}}` } : {}),
  };
}

export function ToolServersPage() {
  const client = useClient();
  const loaded = useLoad((signal) => client.mcps.list({ signal }), [client]);
  const [id, setId] = useState('');
  const [url, setUrl] = useState('');
  const [rows, setRows] = useState<HeaderRow[]>([]);
  const [description, setDescription] = useState('');
  const [oauth, setOauth] = useState(false);
  const [scopes, setScopes] = useState('');
  const [clientId, setClientId] = useState('');
  const [clientSecret, setClientSecret] = useState('');
  const [saved, setSaved] = useState<{ id: string; signsIn: boolean } | undefined>(undefined);
  const [open, setOpen] = useState<string | undefined>(undefined);
  /** The server whose Connect waits for the service's answer. */
  const [connecting, setConnecting] = useState<string | undefined>(undefined);
  /** A sign-in under way in another tab: the list is read again until it is connected, or its link expired. */
  const [awaiting, setAwaiting] = useState<{ id: string; until: number } | undefined>(undefined);
  const [signInNote, setSignInNote] = useState<string | undefined>(undefined);
  const { error, run } = useAction();

  useInterval(() => {
    if (!awaiting) return;
    if (Date.now() > awaiting.until) setAwaiting(undefined);
    else loaded.reload();
  }, SIGN_IN_POLL_MS);
  // Back from a sign-in that took this tab (its pop-up blocked): a page restored from the back-forward cache reads the list again.
  useEffect(() => {
    const onShow = (event: PageTransitionEvent) => {
      if (event.persisted) loaded.reload();
    };
    window.addEventListener('pageshow', onShow);
    return () => window.removeEventListener('pageshow', onShow);
  }, [loaded.reload]);
  useEffect(() => {
    if (!awaiting) return;
    const server = loaded.data?.find((one): one is Remote => one.kind === 'remote' && one.id === awaiting.id);
    if (server?.connection?.status === 'connected') {
      setAwaiting(undefined);
      setSignInNote(`Connected to ${awaiting.id}.`);
    }
  }, [loaded.data, awaiting]);

  const save = (event: Event) => {
    event.preventDefault();
    setSaved(undefined);
    return run(async () => {
      const headers = headersOf(rows);
      const stored = await client.mcps.put(id.trim(), {
        url: url.trim(),
        headers,
        ...(description.trim() ? { description: description.trim() } : {}),
        ...(oauth ? { auth: authOf(scopes, clientId, clientSecret) } : {}),
      });
      setSaved({ id: stored.id, signsIn: stored.auth !== null });
      setId('');
      setUrl('');
      setRows([]);
      setDescription('');
      setOauth(false);
      setScopes('');
      setClientId('');
      setClientSecret('');
      // A replaced server's last check may describe its old URL.
      if (open === stored.id) setOpen(undefined);
      loaded.reload();
    });
  };

  const connect = (serverId: string) => {
    // The tab is opened now, while the click still counts as the person's (one opened once the service
    // has answered may be blocked), and is cut off from this page before it goes anywhere.
    const tab = window.open('', '_blank');
    if (tab) tab.opener = null;
    setSignInNote(undefined);
    setConnecting(serverId);
    return run(async () => {
      try {
        const started = await client.mcps.connect(serverId);
        if (!tab) {
          // No tab (a blocked pop-up): the sign-in takes this one.
          window.location.assign(started.authorizationUrl);
        } else if (tab.closed) {
          setSignInNote(`The tab for signing in to ${serverId} was closed before it opened; press Connect again.`);
        } else {
          tab.location.assign(started.authorizationUrl);
          setAwaiting({ id: serverId, until: Date.parse(started.expiresAt) });
          setSignInNote(`Sign in to ${serverId} in the new tab; this page shows it connected once you have.`);
        }
      } catch (failure) {
        tab?.close();
        throw failure;
      } finally {
        setConnecting(undefined);
      }
    });
  };

  const disconnect = (serverId: string) =>
    run(async () => {
      setSignInNote(undefined);
      if (awaiting?.id === serverId) setAwaiting(undefined);
      const { revoked } = await client.mcps.disconnect(serverId);
      setSignInNote(
        revoked
          ? `Signed out of ${serverId}; its authorization server confirmed the revocation.`
          : `Signed out of ${serverId}. Its tokens are forgotten here; its authorization server did not confirm their revocation.`,
      );
      loaded.reload();
    });

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
        connected to when an agent naming it is deployed, and its tools are kept with that revision (deploy again to pick up new ones). One
        that signs in with OAuth needs you to connect to it once: its sign-in opens in a new tab, and the service keeps and refreshes your
        tokens.
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
        <label class="check">
          <input
            type="checkbox"
            checked={oauth}
            aria-describedby="mcp-oauth-help"
            onChange={(event) => setOauth(event.currentTarget.checked)}
          />
          Sign in with OAuth
        </label>
        <p id="mcp-oauth-help" class="hint">
          Each person connects once, below, at the server's own sign-in. Without a client id the service registers itself there; a client
          you registered yourself needs the redirect URI <code>/mcp-oauth/callback</code> of this service.
        </p>
        {oauth && (
          <>
            <label for="mcp-scopes">Scopes (optional, separated by spaces)</label>
            <input
              id="mcp-scopes"
              placeholder="tickets:read"
              autoComplete="off"
              spellcheck={false}
              value={scopes}
              onInput={(event) => setScopes(event.currentTarget.value)}
            />
            <div class="row">
              <div>
                <label for="mcp-client-id">Client id (optional)</label>
                <input
                  id="mcp-client-id"
                  autoComplete="off"
                  spellcheck={false}
                  value={clientId}
                  onInput={(event) => setClientId(event.currentTarget.value)}
                />
              </div>
              <div>
                <label for="mcp-client-secret">Client secret: the name of one of your secrets (optional)</label>
                <input
                  id="mcp-client-secret"
                  placeholder="TICKETS_CLIENT_SECRET"
                  autoComplete="off"
                  spellcheck={false}
                  value={clientSecret}
                  onInput={(event) => setClientSecret(event.currentTarget.value)}
                />
              </div>
            </div>
          </>
        )}
        <label for="mcp-description">Description (optional)</label>
        <input id="mcp-description" value={description} onInput={(event) => setDescription(event.currentTarget.value)} />
        <button type="submit">Save server</button>
        <p role="status">
          {saved &&
            (saved.signsIn ? `Saved ${saved.id}. Connect to it below to sign in.` : `Saved ${saved.id}. Check it below to see its tools.`)}
        </p>
      </form>
      {error !== undefined && <ProblemView error={error} />}
      <LoadedView loaded={loaded} what="tool servers">
        {(servers) => {
          const remote = servers.filter((server): server is Remote => server.kind === 'remote');
          return (
            <>
              <h2>Remote MCP servers</h2>
              <p role="status">{signInNote}</p>
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
                        {server.auth && <SignInFacts auth={server.auth} connection={server.connection} />}
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
                        {server.auth && signInStatus(server.connection) !== 'connected' && (
                          <button
                            type="button"
                            class="small"
                            aria-label={`Connect ${server.id}`}
                            disabled={connecting === server.id}
                            onClick={() => void connect(server.id)}
                          >
                            Connect
                          </button>
                        )}
                        {server.auth && signInStatus(server.connection) === 'connected' && (
                          <ConfirmButton
                            label={`Disconnect ${server.id}`}
                            question={`Sign out of ${server.id}? Your tokens are revoked and forgotten; your agents' calls to it wait for you to connect again.`}
                            onConfirmed={() => void disconnect(server.id)}
                          >
                            Disconnect
                          </ConfirmButton>
                        )}
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
