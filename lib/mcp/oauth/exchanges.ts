// The OAuth requests a sign-in makes, each with the official SDK's own function where it has one:
// registering the service as a client (RFC 7591), the authorization URL with PKCE (S256) and the
// resource (RFC 8707), the code's exchange, a refresh, and a revocation (RFC 7009, which the SDK's client
// does not make). `fetch` is the guarded one (./fetch.ts).
import type { OAuthClientInformationMixed, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { errorText } from './discovery.ts';
import { McpOAuthError } from './errors.ts';
import { mcpAuthSdk } from './sdk.ts';
import type { ConnectionSecrets, OAuthServerPlace, Refreshed } from './types.ts';

/** The service as a client, as it registers itself. */
const CLIENT_NAME = 'Agent service';

/** The service as a client, as its client ID metadata document describes it (api/routes/mcp-sign-in.ts serves it). */
export function clientMetadataDocument(documentUrl: string, redirectUri: string) {
  return {
    client_id: documentUrl,
    client_name: CLIENT_NAME,
    redirect_uris: [redirectUri],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
  };
}

/**
 * The client to sign in with, the way the MCP authorization spec prefers: the one the user configured
 * (`auth.clientId`, its secret opened); else, where the authorization server takes client ID metadata
 * documents, the service's own document's URL (https only, as such a client ID must be); else a new
 * registration at its registration endpoint (RFC 7591); else an error saying to configure one.
 */
export async function clientFor(
  place: OAuthServerPlace,
  configured: { clientId?: string; clientSecret?: string },
  redirectUri: string,
  scopes: readonly string[],
  fetch: typeof globalThis.fetch,
  documentUrl?: string,
): Promise<OAuthClientInformationMixed> {
  if (configured.clientId) {
    return { client_id: configured.clientId, ...(configured.clientSecret ? { client_secret: configured.clientSecret } : {}) };
  }
  if (documentUrl?.startsWith('https://') && place.metadata.client_id_metadata_document_supported === true)
    return { client_id: documentUrl };
  if (!place.metadata.registration_endpoint) {
    throw new McpOAuthError(
      'its authorization server offers no dynamic client registration: register a client there and set auth.clientId ' +
        `(and auth.clientSecret) with the redirect URI ${redirectUri}`,
    );
  }
  const { registerClient } = await mcpAuthSdk();
  try {
    return await registerClient(place.authorizationServer, {
      metadata: place.metadata,
      clientMetadata: {
        client_name: CLIENT_NAME,
        redirect_uris: [redirectUri],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        ...(scopes.length > 0 ? { scope: scopes.join(' ') } : {}),
      },
      fetchFn: fetch,
    });
  } catch (error) {
    throw new McpOAuthError(`the registration of this service as a client was refused: ${errorText(error)}`, { cause: error });
  }
}

/** Where to send the user, and the PKCE verifier to keep for the exchange. */
export async function authorizationUrl(
  place: OAuthServerPlace,
  client: OAuthClientInformationMixed,
  input: { redirectUri: string; scopes: readonly string[]; state: string },
): Promise<{ url: URL; codeVerifier: string }> {
  const { startAuthorization } = await mcpAuthSdk();
  const started = await startAuthorization(place.authorizationServer, {
    metadata: place.metadata,
    clientInformation: client,
    redirectUrl: input.redirectUri,
    state: input.state,
    ...(input.scopes.length > 0 ? { scope: input.scopes.join(' ') } : {}),
    ...(place.resource ? { resource: new URL(place.resource) } : {}),
  });
  return { url: started.authorizationUrl, codeVerifier: started.codeVerifier };
}

export async function exchangeCode(
  place: OAuthServerPlace,
  input: { client: OAuthClientInformationMixed; code: string; codeVerifier: string; redirectUri: string },
  fetch: typeof globalThis.fetch,
): Promise<OAuthTokens> {
  const { exchangeAuthorization } = await mcpAuthSdk();
  try {
    return await exchangeAuthorization(place.authorizationServer, {
      metadata: place.metadata,
      clientInformation: input.client,
      authorizationCode: input.code,
      codeVerifier: input.codeVerifier,
      redirectUri: input.redirectUri,
      ...(place.resource ? { resource: new URL(place.resource) } : {}),
      fetchFn: fetch,
    });
  } catch (error) {
    throw new McpOAuthError(`the authorization server refused the code: ${errorText(error)}`, { cause: error });
  }
}

/** Refusals that mean the grant is gone: a new sign-in is the only way on. Anything else may pass. */
const FINAL_REFUSALS = new Set(['invalid_grant', 'invalid_client', 'unauthorized_client', 'access_denied']);

/**
 * New tokens for the connection's refresh token, or `needsSignIn` when the server refused the grant for
 * good (or there is no refresh token). Throws for anything that may pass (the server down, a timeout).
 */
export async function refreshTokens(
  place: OAuthServerPlace,
  secrets: ConnectionSecrets,
  fetch: typeof globalThis.fetch,
): Promise<Refreshed> {
  const refreshToken = secrets.tokens.refresh_token;
  if (!refreshToken) return { needsSignIn: 'its access token expired and it gave no refresh token' };
  const { refreshAuthorization, OAuthError } = await mcpAuthSdk();
  try {
    const tokens = await refreshAuthorization(place.authorizationServer, {
      metadata: place.metadata,
      clientInformation: secrets.client,
      refreshToken,
      ...(place.resource ? { resource: new URL(place.resource) } : {}),
      fetchFn: fetch,
    });
    return { tokens };
  } catch (error) {
    if (error instanceof OAuthError && FINAL_REFUSALS.has(error.errorCode)) {
      return { needsSignIn: `the authorization server refused to refresh its sign-in (${error.errorCode})` };
    }
    // The SDK quotes the server's answer, which may echo what it was sent: neither the token nor the secret goes on.
    const secret = 'client_secret' in secrets.client ? secrets.client.client_secret : undefined;
    const text = [refreshToken, secret].reduce<string>(
      (said, value) => (value ? said.split(value).join('[redacted]') : said),
      errorText(error),
    );
    throw new McpOAuthError(`the sign-in could not be refreshed: ${text}`);
  }
}

/**
 * Revokes the tokens at the authorization server (RFC 7009) when it has a revocation endpoint: the refresh
 * token (which ends the grant at most servers) and the access token. Best effort: false when the server
 * has none or did not answer 200; the connection is forgotten here either way.
 */
export async function revokeTokens(place: OAuthServerPlace, secrets: ConnectionSecrets, fetch: typeof globalThis.fetch): Promise<boolean> {
  const endpoint = (place.metadata as { revocation_endpoint?: unknown }).revocation_endpoint;
  if (typeof endpoint !== 'string') return false;
  const { selectClientAuthMethod } = await mcpAuthSdk();
  const supported = (place.metadata as { revocation_endpoint_auth_methods_supported?: string[] })
    .revocation_endpoint_auth_methods_supported;
  const method = selectClientAuthMethod(secrets.client, supported ?? place.metadata.token_endpoint_auth_methods_supported ?? []);
  const tokens = [
    ...(secrets.tokens.refresh_token ? [['refresh_token', secrets.tokens.refresh_token] as const] : []),
    ['access_token', secrets.tokens.access_token] as const,
  ];
  let revoked = true;
  // The client's secret was allowed to go to the token endpoint's host (its secret's `hosts`), and only there.
  const sameHost = new URL(endpoint).host === new URL(place.metadata.token_endpoint).host;
  for (const [hint, token] of tokens) {
    const body = new URLSearchParams({ token, token_type_hint: hint });
    const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' };
    const secret = sameHost && 'client_secret' in secrets.client ? secrets.client.client_secret : undefined;
    if (method === 'client_secret_basic' && secret) {
      headers.authorization = `Basic ${Buffer.from(`${encodeURIComponent(secrets.client.client_id)}:${encodeURIComponent(secret)}`).toString('base64')}`;
    } else {
      body.set('client_id', secrets.client.client_id);
      if (method === 'client_secret_post' && secret) body.set('client_secret', secret);
    }
    try {
      const response = await fetch(endpoint, { method: 'POST', headers, body });
      await response.body?.cancel().catch(() => undefined);
      revoked &&= response.ok;
    } catch {
      revoked = false;
    }
  }
  return revoked;
}
