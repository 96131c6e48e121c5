// The authorization request checked before the MCP SDK's handler takes it: what it would refuse by
// redirecting to the client's redirect URI (a bad response type, a missing PKCE challenge, an unknown
// scope or resource) is refused here, on this page, so a client anyone registered cannot use the
// service's own address to send a browser wherever it likes with an error (an open redirect).
import { OAUTH_SCOPES } from './scopes.ts';
import { normalPath } from '../middleware/auth.ts';

/** An agent's MCP URL path: the only resources a grant may be bound to. */
const MCP_PATH = /^\/agent\/[a-z0-9][a-z0-9_-]{0,62}\/mcp$/;
/** RFC 7636: 43 to 128 characters of the unreserved set. */
const CHALLENGE = /^[A-Za-z0-9._~-]{43,128}$/;

export interface OAuthErrorBody {
  error: string;
  error_description: string;
}

const refuse = (error: string, description: string): OAuthErrorBody => ({ error, error_description: description });

export function authorizeProblem(query: Record<string, unknown>, base: string): OAuthErrorBody | undefined {
  const one = (name: string) => (typeof query[name] === 'string' ? query[name] : undefined);
  if (one('response_type') !== 'code') return refuse('unsupported_response_type', 'response_type must be "code"');
  if (one('code_challenge_method') !== 'S256') return refuse('invalid_request', 'PKCE is required: code_challenge_method must be "S256"');
  if (!CHALLENGE.test(one('code_challenge') ?? '')) return refuse('invalid_request', 'code_challenge must be 43 to 128 characters');
  const scope = one('scope');
  const unknown = (scope ? scope.split(' ') : []).filter((asked) => !(OAUTH_SCOPES as readonly string[]).includes(asked));
  if (unknown.length) {
    return refuse('invalid_scope', `Unknown scope: ${unknown.join(', ')}; a client may ask for ${OAUTH_SCOPES.join(' ')}`);
  }
  const resource = one('resource');
  // MCP clients name the server they sign in to (RFC 8707): the grant is bound to it, and works nowhere else.
  if (!resource || !URL.canParse(resource)) {
    return refuse('invalid_target', `resource is required: the agent's MCP URL (${base}/agent/<name>/mcp)`);
  }
  const url = new URL(resource);
  if (url.origin !== new URL(base).origin || !MCP_PATH.test(normalPath(url.pathname)) || url.search || url.hash) {
    return refuse('invalid_target', `resource must be an agent's MCP URL here (${base}/agent/<name>/mcp)`);
  }
  return undefined;
}
