import type { McpConnectStarted, PutMcpServerBody, RemoteToolServerView, ToolServerList, ToolServerView } from '../contract.ts';
import { path, type RequestOptions } from '../transport.ts';
import { Resource } from './resource.ts';

/**
 * The tool servers a bundle may name in `mcps`: the built-in ones (`kind: 'builtin'`) and the remote
 * MCP servers you registered (`kind: 'remote'`).
 */
export class Mcps extends Resource {
  /** Built-in servers with their tools, then yours by id (their header names, never a value). */
  list(options?: RequestOptions): Promise<ToolServerList> {
    return this.transport.json({ method: 'GET', path: '/mcps', idempotent: true }, options);
  }

  /**
   * Registers (or replaces) a remote MCP server. Nothing connects yet: a deploy naming `id` does.
   * Header values may hold `{{secrets.KEY}}`, filled in only for the hosts that secret allows; a
   * value is stored as written and never shown again, so put credentials in secrets.
   */
  put(id: string, body: PutMcpServerBody, options?: RequestOptions): Promise<RemoteToolServerView> {
    return this.transport.json({ method: 'PUT', path: path`/mcp/${id}`, json: body, idempotent: true }, options);
  }

  /**
   * One server with its tools; a remote one is connected to and listed now, so this is how to check a
   * URL and its headers. A remote server that cannot be reached throws InternalServerError with
   * status 502 (`type` ending in `mcp-unreachable`). Not retried by default, as health checks are
   * not: the service already waited for the server, and a retry would only make the person wait again.
   */
  retrieve(id: string, options?: RequestOptions): Promise<ToolServerView> {
    return this.transport.json({ method: 'GET', path: path`/mcp/${id}`, idempotent: true }, { maxRetries: 0, ...options });
  }

  /** Removes a server you registered (signing out of it first); revisions deployed with it keep its tools, whose calls then fail. */
  delete(id: string, options?: RequestOptions): Promise<void> {
    return this.transport.json({ method: 'DELETE', path: path`/mcp/${id}`, idempotent: true }, options);
  }

  /**
   * Starts signing in to a server registered with `auth: {type: 'oauth'}`: open `authorizationUrl` in a
   * browser as the user to sign in. The server's `connection` in list() says when it is done. Not
   * retried by default: each call starts a new sign-in at the authorization server.
   */
  connect(id: string, options?: RequestOptions): Promise<McpConnectStarted> {
    return this.transport.json({ method: 'POST', path: path`/mcp/${id}/connect`, idempotent: false }, { maxRetries: 0, ...options });
  }

  /** Signs out of a server: its tokens are revoked where the authorization server offers that, and forgotten. */
  disconnect(id: string, options?: RequestOptions): Promise<{ revoked: boolean }> {
    return this.transport.json({ method: 'DELETE', path: path`/mcp/${id}/connection`, idempotent: true }, options);
  }
}
