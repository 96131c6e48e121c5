// The access token a call of a signed-in server sends: read once per connection, refreshed first when it
// runs out within a minute, and refreshed once more when the server refuses it (it may have been revoked
// early, or the clock is off). Refreshes hold the connection's row lock, so processes never spend one
// refresh token twice; the one that waited finds the new token and uses it.
import { McpSignInNeededError } from './errors.ts';
import { refreshTokens } from './exchanges.ts';
import type { ConnectionAccess, ConnectionSecrets, Refreshed, StoredConnection } from './types.ts';

/** A token running out within this long is refreshed before it is sent. */
export const REFRESH_AHEAD_MS = 60_000;

export interface BearerSource {
  /** The token to send now. Throws McpSignInNeededError when only the user can help. */
  current(): Promise<string>;
  /** A new token after the server refused `refused` (401); McpSignInNeededError when none comes. */
  afterRefusal(refused: string): Promise<string>;
  /** The server refused a token just refreshed: marks the sign-in for renewal and answers the error to throw. */
  refusedForGood(): Promise<McpSignInNeededError>;
  /** The tokens this source has handed out or holds, to mask in what the server says. */
  known(): readonly string[];
}

const runsOut = (connection: StoredConnection, now: number) =>
  connection.expiresAt !== null && connection.expiresAt.getTime() - now < REFRESH_AHEAD_MS;

export function bearerSource(access: ConnectionAccess, server: { id: string; url: string }, fetch: typeof globalThis.fetch): BearerSource {
  const seen = new Set<string>();
  const signIn = (reason: string) => new McpSignInNeededError(server.id, reason);

  function usable(connection: StoredConnection): void {
    if (connection.serverUrl !== server.url) throw signIn(`its URL changed since it was signed in to`);
    if (connection.needsSignIn) throw signIn(connection.needsSignIn);
  }

  function tokenOf(outcome: Refreshed | undefined): string {
    if (!outcome) throw signIn('it was never signed in to');
    if ('needsSignIn' in outcome) throw signIn(outcome.needsSignIn);
    seen.add(outcome.tokens.access_token);
    if (outcome.tokens.refresh_token) seen.add(outcome.tokens.refresh_token);
    return outcome.tokens.access_token;
  }

  /** Refreshes under the lock unless `stillGood` says the stored tokens (another process's, maybe) will do. */
  async function refreshUnless(stillGood: (connection: StoredConnection, secrets: ConnectionSecrets) => boolean): Promise<string> {
    const outcome = await access.refreshLocked(async (connection, secrets) => {
      usable(connection);
      return stillGood(connection, secrets) ? 'unchanged' : refreshTokens(connection, secrets, fetch);
    });
    return tokenOf(outcome);
  }

  return {
    async current() {
      const stored = await access.read();
      if (!stored) throw signIn('it was never signed in to');
      usable(stored.connection);
      if (!stored.secrets) throw signIn('its sign-in holds no tokens');
      if (!runsOut(stored.connection, Date.now())) return tokenOf({ tokens: stored.secrets.tokens });
      return refreshUnless((connection) => !runsOut(connection, Date.now()));
    },
    afterRefusal(refused) {
      return refreshUnless((_, secrets) => secrets.tokens.access_token !== refused);
    },
    async refusedForGood() {
      const reason = 'the server refused the tokens of its sign-in';
      await access.markNeedsSignIn(reason);
      return signIn(reason);
    },
    known: () => [...seen],
  };
}
