// What a sign-in to a remote MCP server keeps (store/mcp-connections.ts) and the OAuth code here passes around.
import type { AuthorizationServerMetadata, OAuthClientInformationMixed, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';

/** How a registered server is signed in to (PUT /mcp/<id> `auth`); the secret is a {{secrets.KEY}} reference. */
export interface McpOAuthSettings {
  type: 'oauth';
  scopes?: string[];
  clientId?: string;
  clientSecret?: string;
}

/** Where a server's sign-in goes: found by discovery, kept with the connection and the sign-in under way. */
export interface OAuthServerPlace {
  authorizationServer: string;
  metadata: AuthorizationServerMetadata;
  /** The RFC 8707 resource the tokens are asked for (the MCP server's URL, or what its metadata names). */
  resource: string | null;
}

/** What is sealed with a connection: its tokens and the client they were given to. */
export interface ConnectionSecrets {
  tokens: OAuthTokens;
  client: OAuthClientInformationMixed;
}

/** A refresh's outcome: new tokens, or why only a new sign-in helps. */
export type Refreshed = { tokens: OAuthTokens } | { needsSignIn: string };

/** A stored sign-in as the code sending its tokens reads it. */
export interface StoredConnection extends OAuthServerPlace {
  serverUrl: string;
  expiresAt: Date | null;
  /** Why the user must sign in again, or null while the tokens work. */
  needsSignIn: string | null;
}

/** One user's sign-in to one server, as stored (store/mcp-connections.ts `connectionAccess`). */
export interface ConnectionAccess {
  /** The connection and its opened secrets (absent once a refusal dropped them), or undefined when never signed in. */
  read(): Promise<{ connection: StoredConnection; secrets: ConnectionSecrets | undefined } | undefined>;
  /**
   * Runs `refresh` holding the connection's lock (one refresh at a time across processes), with the
   * connection as it stands then, and stores what it answers; undefined when there is no connection.
   */
  refreshLocked(
    refresh: (connection: StoredConnection, secrets: ConnectionSecrets) => Promise<Refreshed | 'unchanged'>,
  ): Promise<Refreshed | undefined>;
}
