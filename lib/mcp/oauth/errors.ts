// The two ways signing in to a remote MCP server fails: the user must sign in (again), or the server's
// OAuth set-up cannot be used as it is (its metadata, its registration). Both name the server by id.

/**
 * The user has not signed in to the server, the server refused the tokens, or a refresh was refused for
 * good (revoked, expired): only the user signing in again helps (POST /mcp/<id>/connect).
 */
export class McpSignInNeededError extends Error {
  override name = 'McpSignInNeededError';
  constructor(
    readonly serverId: string,
    readonly reason: string,
  ) {
    super(`The MCP server "${serverId}" needs its user to sign in (${reason}): connect it with POST /mcp/${serverId}/connect`);
  }
}

/** The server's or its authorization server's OAuth answers cannot be used (discovery, registration, a token request). */
export class McpOAuthError extends Error {
  override name = 'McpOAuthError';
}
