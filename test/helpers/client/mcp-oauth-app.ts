// An MCP client application signing in to an agent's MCP URL with the official MCP SDK's OAuth flow,
// and the user who allows it on the consent API (as the dashboard's page does, with their key).
import { expect } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { call } from './request.ts';
import type { AgentEnv } from '../harness/agent-env.ts';

export const REDIRECT = 'http://127.0.0.1:9/callback';

/** What an MCP client application keeps: its registration, its tokens, the PKCE verifier, where it sent the user. */
export class ClientApp implements OAuthClientProvider {
  information: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = '';
  authorizationUrl: URL | undefined;
  get redirectUrl() {
    return REDIRECT;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'Test MCP client',
      redirect_uris: [REDIRECT],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  clientInformation() {
    return this.information;
  }
  saveClientInformation(information: OAuthClientInformationMixed) {
    this.information = information;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

export const transportFor = (url: string, app: ClientApp) => new StreamableHTTPClientTransport(new URL(url), { authProvider: app });

/**
 * The whole sign-in: the first connect is refused and sends the user to authorize; the user follows it to
 * the consent page and allows it with their key; the client finishes with the code and connects.
 */
export async function signIn(
  env: AgentEnv,
  mcpUrl: string,
  app: ClientApp,
  options: { allow?: boolean; approver?: Record<string, string>; clientName?: string } = {},
): Promise<Client | string> {
  const allow = options.allow ?? true;
  const approver = options.approver ?? env.user.auth;
  const first = transportFor(mcpUrl, app);
  await expect(new Client({ name: 'test-client', version: '1.0.0' }).connect(first)).rejects.toBeInstanceOf(UnauthorizedError);
  expect(app.authorizationUrl).toBeDefined();
  // The user's browser at the authorization URL: sent on to the consent page.
  const authorize = await fetch(app.authorizationUrl!, { redirect: 'manual' });
  expect(authorize.status).toBe(302);
  const consent = new URL(authorize.headers.get('location')!);
  expect(consent.pathname).toBe('/app/oauth/consent');
  const requestId = consent.searchParams.get('request')!;
  const shown = await call<{ client: { name: string }; scopes: string[]; redirectHost: string; resource?: string }>(
    `${env.api.url}/oauth/authorization/${requestId}`,
    { headers: approver },
  );
  expect(shown.body).toMatchObject({ client: { name: options.clientName ?? 'Test MCP client' }, redirectHost: '127.0.0.1:9' });
  const decided = await call<{ redirectUrl: string }>(`${env.api.url}/oauth/authorization/${requestId}`, {
    headers: approver,
    json: { allow },
  });
  expect(decided.status).toBe(200);
  const back = new URL(decided.body.redirectUrl);
  expect(`${back.origin}${back.pathname}`).toBe(REDIRECT);
  if (!allow) return back.searchParams.get('error')!;
  await first.finishAuth(back.searchParams.get('code')!);
  const client = new Client({ name: 'test-client', version: '1.0.0' });
  await client.connect(transportFor(mcpUrl, app));
  return client;
}
