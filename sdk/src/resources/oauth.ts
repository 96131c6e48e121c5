// The consent side of OAuth for the agents' MCP URLs: an MCP client sent its user to the dashboard's
// consent page, which reads the authorization and decides it as the signed-in user (docs/mcp.md).
import type { OAuthAuthorizationView, OAuthDecision } from '../contract.ts';
import { path, type RequestOptions } from '../transport.ts';
import { Resource } from './resource.ts';

export class OAuth extends Resource {
  /** An authorization waiting for its user: the client, where its code goes, the scopes it asks for. */
  authorization(id: string, options?: RequestOptions): Promise<OAuthAuthorizationView> {
    return this.transport.json({ method: 'GET', path: path`/oauth/authorization/${id}`, idempotent: true }, options);
  }

  /** Allows or denies it, once: the answer is where to send the browser (the client's redirect URI). */
  decide(id: string, allow: boolean, options?: RequestOptions): Promise<OAuthDecision> {
    return this.transport.json({ method: 'POST', path: path`/oauth/authorization/${id}`, json: { allow }, idempotent: false }, options);
  }
}
