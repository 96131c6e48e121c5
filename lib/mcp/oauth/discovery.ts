// Where a remote MCP server's users sign in, found the way the MCP authorization spec describes: the
// server's 401 names its protected-resource metadata (RFC 9728; else its well-known URL), which names
// the authorization server, whose metadata (RFC 8414, or OpenID discovery) names the endpoints. What the
// documents say is checked before anything is stored or a user is sent anywhere: the resource they
// describe is this server, the authorization server's `issuer` is the URL it was found at, and it does
// the authorization code flow with PKCE (S256).
import type { OAuthServerPlace } from './types.ts';
import { McpOAuthError } from './errors.ts';
import { mcpAuthSdk } from './sdk.ts';

export interface DiscoveredSignIn {
  place: OAuthServerPlace;
  /** What the server says to ask for (its 401's `scope`, else its metadata's `scopes_supported`). */
  scopes: string[];
}

/**
 * An `initialize` with no token: the server's 401 says where its metadata is and which scopes it wants.
 * It carries the server's registered headers (a gateway's key, say), as every request to it does.
 */
async function probe(
  serverUrl: string,
  headers: Record<string, string>,
  fetch: typeof globalThis.fetch,
): Promise<{ resourceMetadataUrl?: URL; scope?: string }> {
  const { extractWWWAuthenticateParams } = await mcpAuthSdk();
  const response = await fetch(serverUrl, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'agent-service', version: '1' } },
    }),
  });
  await response.body?.cancel().catch(() => undefined);
  if (response.status !== 401) return {};
  const { resourceMetadataUrl, scope } = extractWWWAuthenticateParams(response);
  return { ...(resourceMetadataUrl ? { resourceMetadataUrl } : {}), ...(scope ? { scope } : {}) };
}

const withoutTrailingSlash = (url: string) => url.replace(/\/+$/, '');

export async function discoverSignIn(
  serverUrl: string,
  fetch: typeof globalThis.fetch,
  headers: Record<string, string> = {},
): Promise<DiscoveredSignIn> {
  const sdk = await mcpAuthSdk();
  const asked = await probe(serverUrl, headers, fetch);
  let info: Awaited<ReturnType<typeof sdk.discoverOAuthServerInfo>>;
  try {
    info = await sdk.discoverOAuthServerInfo(serverUrl, {
      ...(asked.resourceMetadataUrl ? { resourceMetadataUrl: asked.resourceMetadataUrl } : {}),
      fetchFn: fetch,
    });
  } catch (error) {
    throw new McpOAuthError(`its authorization server's metadata could not be read: ${errorText(error)}`, { cause: error });
  }
  const metadata = info.authorizationServerMetadata;
  if (!metadata) {
    throw new McpOAuthError(
      `no OAuth metadata was found for it (RFC 9728 protected-resource metadata naming an authorization server, ` +
        `or RFC 8414 metadata at ${info.authorizationServerUrl})`,
    );
  }
  // RFC 8414 section 3.3: metadata whose issuer is not where it was found may be another server's, served to mislead.
  if (withoutTrailingSlash(metadata.issuer) !== withoutTrailingSlash(info.authorizationServerUrl)) {
    throw new McpOAuthError(
      `its authorization server's metadata names the issuer ${metadata.issuer}, not ${info.authorizationServerUrl} where it was found`,
    );
  }
  refuseDowngrade(serverUrl, info.authorizationServerUrl, metadata);
  const resourceDocument = info.resourceMetadata;
  if (resourceDocument && !sdk.checkResourceAllowed({ requestedResource: serverUrl, configuredResource: resourceDocument.resource })) {
    throw new McpOAuthError(`its protected-resource metadata describes ${resourceDocument.resource}, not this server`);
  }
  if (!metadata.response_types_supported.includes('code'))
    throw new McpOAuthError('its authorization server does not offer the authorization code flow');
  const methods = metadata.code_challenge_methods_supported;
  // OAuth 2.1 (and the MCP spec) ask for PKCE with S256; a server that says it does something else is refused.
  if (methods && !methods.includes('S256')) throw new McpOAuthError('its authorization server does not offer PKCE with S256');
  const resource = resourceDocument ? resourceDocument.resource : resourceOf(serverUrl);
  const scopes = (asked.scope ?? resourceDocument?.scopes_supported?.join(' ') ?? '').split(' ').filter(Boolean);
  return { place: { authorizationServer: info.authorizationServerUrl, metadata, resource }, scopes };
}

/** The endpoints a sign-in sends codes, secrets and tokens to. */
const ENDPOINTS = ['authorization_endpoint', 'token_endpoint', 'registration_endpoint', 'revocation_endpoint'] as const;

/**
 * A server reached over https signs in over https only: metadata pointing a step of it at plain http
 * (a typo, or a downgrade served to read codes and tokens in transit) is refused. A plain-http server
 * (one on the operator's own network, allowed by OUTBOUND_ALLOW_CIDRS) may have a plain-http sign-in.
 */
export function refuseDowngrade(
  serverUrl: string,
  authorizationServer: string,
  metadata: Partial<Record<(typeof ENDPOINTS)[number], string>>,
): void {
  if (new URL(serverUrl).protocol !== 'https:') return;
  const places: Array<[string, string | undefined]> = [
    ['the authorization server', authorizationServer],
    ...ENDPOINTS.map((name): [string, string | undefined] => [`its ${name}`, metadata[name]]),
  ];
  for (const [what, url] of places) {
    if (url !== undefined && new URL(url).protocol !== 'https:')
      throw new McpOAuthError(`${what} (${url}) is not https, and the server is: its sign-in would travel unencrypted`);
  }
}

/**
 * The server's URL as the RFC 8707 resource when its metadata names none: without its query string and
 * fragment, which may carry a credential (lib/mcp/url-redaction.ts) and would otherwise travel in the
 * authorization URL, the token requests and the stored sign-in.
 */
function resourceOf(serverUrl: string): string {
  const url = new URL(serverUrl);
  url.search = '';
  url.hash = '';
  return url.href;
}

/** An error's message, and its cause's when the SDK wrapped one (a zod error names the field that failed). */
export function errorText(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error && error.cause.message !== error.message ? ` (${error.cause.message})` : '';
  return `${error.message}${cause}`.slice(0, 500);
}
