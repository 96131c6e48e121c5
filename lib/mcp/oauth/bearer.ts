// The access token a call of a signed-in server sends: read once per connection, refreshed first when it
// runs out within a minute, and refreshed once more when the server refuses it (it may have been revoked
// early, or the clock is off). Refreshes hold the connection's row lock, so processes never spend one
// refresh token twice; the one that waited finds the new token and uses it.
import { McpSignInNeededError } from './errors.ts';
import { refreshTokens } from './exchanges.ts';
import type { ConnectionAccess, ConnectionSecrets, Refreshed, StoredConnection } from './types.ts';

/** A token running out within this long is refreshed before it is sent. */
export const REFRESH_AHEAD_MS = 60_000;

/**
 * Refreshes the sign-in now if its access token runs out within `withinMs` (the housekeeping pass does, so
 * calls rarely meet an expired token, and a refresh token is used often enough to stay alive). Answers
 * whether it refreshed; McpSignInNeededError when the server refused for good (the connection is marked).
 */
export async function refreshAhead(
  access: ConnectionAccess,
  server: { id: string; url: string },
  fetch: typeof globalThis.fetch,
  withinMs: number,
): Promise<boolean> {
  let refreshed = false;
  const outcome = await access.refreshLocked(async (connection, secrets) => {
    if (connection.serverUrl !== server.url || connection.needsSignIn) return 'unchanged';
    if (connection.expiresAt === null || connection.expiresAt.getTime() - Date.now() >= withinMs) return 'unchanged';
    refreshed = true;
    return refreshTokens(connection, secrets, fetch);
  });
  if (outcome && 'needsSignIn' in outcome) throw new McpSignInNeededError(server.id, outcome.needsSignIn);
  return refreshed;
}

export interface BearerSource {
  /** The token to send now. Throws McpSignInNeededError when only the user can help. */
  current(): Promise<string>;
  /** A new token after the server refused `refused` (401); McpSignInNeededError when none comes. */
  afterRefusal(refused: string): Promise<string>;
  /**
   * The server refused `refused`, a token just refreshed: the sign-in is marked for renewal (unless it holds
   * another token by now: a new sign-in meanwhile), and the error to throw is answered.
   */
  refusedForGood(refused: string): Promise<McpSignInNeededError>;
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

  /** Everything secret of a sign-in this source has seen, to mask in what the server (or its authorization server) says. */
  function remember(secrets: ConnectionSecrets): void {
    for (const value of [
      secrets.tokens.access_token,
      secrets.tokens.refresh_token,
      'client_secret' in secrets.client ? secrets.client.client_secret : undefined,
    ]) {
      if (value) seen.add(value);
    }
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
      remember(secrets);
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
      remember(stored.secrets);
      if (!runsOut(stored.connection, Date.now())) return tokenOf({ tokens: stored.secrets.tokens });
      return refreshUnless((connection) => !runsOut(connection, Date.now()));
    },
    afterRefusal(refused) {
      return refreshUnless((_, secrets) => secrets.tokens.access_token !== refused);
    },
    async refusedForGood(refused) {
      const reason = 'the server refused the tokens of its sign-in';
      await access.refreshLocked(async (_, secrets) => (secrets.tokens.access_token === refused ? { needsSignIn: reason } : 'unchanged'));
      return signIn(reason);
    },
    known: () => [...seen],
  };
}
