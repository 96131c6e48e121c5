// A remote MCP server's sign-in, for one registered with OAuth: how it signs in (the facts rows) and the
// person's own sign-in to it as a badge, with what goes with it: since when and with which scopes, or
// why a new sign-in is needed. The Connect and Disconnect buttons are the page's (they change the list).
import type { McpAuthBody, McpConnectionView } from '@agent-service/sdk';
import { ScopeList } from '../ui/scope-list.tsx';
import { When } from '../ui/when.tsx';

export type SignInStatus = NonNullable<McpConnectionView>['status'];

const SHOWN: Record<SignInStatus, { tone: string; words: string }> = {
  connected: { tone: 'ok', words: 'Connected' },
  'needs-sign-in': { tone: 'warn', words: 'Needs sign-in' },
  'not-connected': { tone: 'muted', words: 'Not connected' },
};

/** The status of a server with `auth`: a connection the service has not made yet reads as not connected. */
export function signInStatus(connection: McpConnectionView): SignInStatus {
  return connection?.status ?? 'not-connected';
}

export function SignInFacts({ auth, connection }: { auth: McpAuthBody; connection: McpConnectionView }) {
  const status = signInStatus(connection);
  const { tone, words } = SHOWN[status];
  return (
    <>
      <dt>Auth</dt>
      <dd>
        OAuth,{' '}
        {auth.clientId ? (
          <>
            client <code>{auth.clientId}</code>
          </>
        ) : (
          'client registered by the service'
        )}
        {auth.scopes?.length ? (
          <>
            , asks for <ScopeList scopes={auth.scopes} />
          </>
        ) : null}
      </dd>
      <dt>Sign-in</dt>
      <dd>
        <span class={`badge ${tone}`}>{words}</span>
        {status === 'connected' && connection?.connectedAt && (
          <>
            {' '}
            since <When iso={connection.connectedAt} />
          </>
        )}
      </dd>
      {status === 'connected' && connection && connection.scopes.length > 0 && (
        <>
          <dt>Scopes granted</dt>
          <dd>
            <ScopeList scopes={connection.scopes} />
          </dd>
        </>
      )}
      {status === 'needs-sign-in' && connection?.reason && (
        <>
          <dt>Why</dt>
          <dd>{connection.reason}</dd>
        </>
      )}
    </>
  );
}
