// An OAuth-protected MCP server for the tests, built from the official SDK's server-side pieces only: its
// auth router (metadata RFC 8414 and RFC 9728, dynamic registration, authorize, token with PKCE checked by
// the SDK, revocation) and its bearer middleware in front of a Streamable HTTP server. The provider behind
// them is the test's, in memory: it approves every authorization as `signInAs` (the person at the
// consent screen), and the test can expire, revoke, delay or refuse what it hands out.
import { randomUUID } from 'node:crypto';
import type { Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type Response } from 'express';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createOAuthMetadata, mcpAuthRouter, getOAuthProtectedResourceMetadataUrl } from '@modelcontextprotocol/sdk/server/auth/router.js';
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import { InvalidGrantError, InvalidTokenError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type { AuthorizationParams, OAuthServerProvider } from '@modelcontextprotocol/sdk/server/auth/provider.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { OAuthClientInformationFull, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { closeServer } from './recorded.ts';

interface Grant {
  subject: string;
  clientId: string;
  scopes: string[];
  resource?: string;
}

export interface OAuthMcpOptions {
  /** Seconds an access token lasts (default an hour). */
  accessTokenTtlSeconds?: number;
  /** Scopes the server's metadata lists. */
  scopes?: string[];
  /** No registration endpoint: clients must be configured (`clients` holds them). */
  withoutRegistration?: boolean;
  /**
   * Takes client ID metadata documents (`client_id_metadata_document_supported`): a client ID that is an https
   * URL is its document, fetched from where `fetchableAt` says (the test's service answers on http).
   */
  clientIdDocuments?: { fetchableAt: (url: string) => string };
  /** A gateway in front of the MCP endpoint: a request without this `x-gateway-key` is refused (403). */
  gatewayKey?: string;
}

export interface OAuthMcpServer {
  /** The MCP endpoint (`/mcp`). */
  url: string;
  /** The authorization server's issuer (the same origin). */
  issuer: string;
  /** Who approves the next authorizations (the person at the consent screen). */
  signInAs(subject: string): void;
  /** The next authorization is denied (`access_denied` to the redirect URI). */
  denyNext(): void;
  /** Every tools/call, with the subject its token belongs to. */
  calls: { tool: string; subject: string }[];
  /** Token requests by grant type, in order. */
  tokenRequests: string[];
  /** Clients registered by dynamic registration. */
  registered: OAuthClientInformationFull[];
  /** Client ID metadata documents fetched, by client ID. */
  documentsFetched: string[];
  /** Requests to the MCP endpoint the gateway refused (no or a wrong `x-gateway-key`). */
  refusedByGateway(): number;
  /** Tokens revoked at the revocation endpoint. */
  revoked: string[];
  /** Access tokens issued so far, newest last. */
  accessTokens(): string[];
  /** Every access token stops working now (as if each had expired or been revoked early). */
  expireAccessTokens(): void;
  /** Every refresh token of `subject` is refused from now on (the user revoked the grant at the server). */
  revokeGrantsOf(subject: string): void;
  /** Refresh requests wait this long before answering (a slow server, for a process killed meanwhile). */
  delayRefresh(ms: number): void;
  /** A client the test registers by hand (for `auth.clientId`). */
  addClient(client: OAuthClientInformationFull): void;
  close(): Promise<void>;
}

export async function startOAuthMcpServer(options: OAuthMcpOptions = {}): Promise<OAuthMcpServer> {
  const ttl = options.accessTokenTtlSeconds ?? 3600;
  const clients = new Map<string, OAuthClientInformationFull>();
  const codes = new Map<string, { client: OAuthClientInformationFull; params: AuthorizationParams; subject: string }>();
  const access = new Map<string, Grant & { expiresAt: number }>();
  const refresh = new Map<string, Grant>();
  const issued: string[] = [];
  const calls: { tool: string; subject: string }[] = [];
  const tokenRequests: string[] = [];
  const registered: OAuthClientInformationFull[] = [];
  const revoked: string[] = [];
  const refusedSubjects = new Set<string>();
  const documentsFetched: string[] = [];
  let gatewayRefusals = 0;
  let subject = 'person-a';
  let deny = false;
  let refreshDelayMs = 0;

  function tokensFor(grant: Grant): OAuthTokens {
    const accessToken = `at-${randomUUID()}`;
    const refreshToken = `rt-${randomUUID()}`;
    access.set(accessToken, { ...grant, expiresAt: Date.now() + ttl * 1000 });
    refresh.set(refreshToken, grant);
    issued.push(accessToken);
    return { access_token: accessToken, token_type: 'Bearer', expires_in: ttl, refresh_token: refreshToken, scope: grant.scopes.join(' ') };
  }

  const provider: OAuthServerProvider = {
    clientsStore: {
      async getClient(id) {
        if (!options.clientIdDocuments || !id.startsWith('https://')) return clients.get(id);
        const document = (await (await fetch(options.clientIdDocuments.fetchableAt(id))).json()) as OAuthClientInformationFull;
        documentsFetched.push(id);
        // A document must name itself as the client ID.
        return document.client_id === id ? document : undefined;
      },
      ...(options.withoutRegistration
        ? {}
        : {
            registerClient: (client) => {
              const full = { ...client, client_id: `client-${randomUUID()}`, client_id_issued_at: Math.floor(Date.now() / 1000) };
              clients.set(full.client_id, full);
              registered.push(full);
              return full;
            },
          }),
    },
    async authorize(client, params, res: Response) {
      const target = new URL(params.redirectUri);
      if (params.state) target.searchParams.set('state', params.state);
      if (deny) {
        deny = false;
        target.searchParams.set('error', 'access_denied');
        target.searchParams.set('error_description', 'The person said no');
      } else {
        const code = `code-${randomUUID()}`;
        codes.set(code, { client, params, subject });
        target.searchParams.set('code', code);
      }
      res.redirect(302, target.href);
    },
    async challengeForAuthorizationCode(_client, code) {
      const found = codes.get(code);
      if (!found) throw new InvalidGrantError('unknown code');
      return found.params.codeChallenge;
    },
    async exchangeAuthorizationCode(client, code, _verifier, redirectUri, resource) {
      tokenRequests.push('authorization_code');
      const found = codes.get(code);
      codes.delete(code);
      if (!found || found.client.client_id !== client.client_id) throw new InvalidGrantError('unknown code');
      if (redirectUri !== found.params.redirectUri) throw new InvalidGrantError('redirect_uri differs');
      if (resource?.href !== found.params.resource?.href) throw new InvalidGrantError('resource differs');
      return tokensFor({ subject: found.subject, clientId: client.client_id, scopes: found.params.scopes ?? [], resource: resource?.href });
    },
    async exchangeRefreshToken(client, refreshToken) {
      tokenRequests.push('refresh_token');
      if (refreshDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, refreshDelayMs));
      const grant = refresh.get(refreshToken);
      if (!grant || grant.clientId !== client.client_id || refusedSubjects.has(grant.subject))
        throw new InvalidGrantError('refresh token refused');
      // Rotated: the old refresh token is spent.
      refresh.delete(refreshToken);
      return tokensFor(grant);
    },
    async verifyAccessToken(token): Promise<AuthInfo> {
      const grant = access.get(token);
      if (!grant || grant.expiresAt < Date.now()) throw new InvalidTokenError('token expired or unknown');
      return {
        token,
        clientId: grant.clientId,
        scopes: grant.scopes,
        expiresAt: Math.floor(grant.expiresAt / 1000),
        extra: { subject: grant.subject },
      };
    },
    async revokeToken(_client, request) {
      revoked.push(request.token);
      access.delete(request.token);
      refresh.delete(request.token);
    },
  };

  const app = express();
  const http: HttpServer = await new Promise((resolve) => {
    const server = app.listen(0, '127.0.0.1', () => resolve(server));
  });
  const origin = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const mcpUrl = new URL('/mcp', origin);
  if (options.clientIdDocuments) {
    // The SDK's router does not say it takes client ID metadata documents: its metadata, with that said, comes first.
    const metadata = { ...createOAuthMetadata({ provider, issuerUrl: new URL(origin) }), client_id_metadata_document_supported: true };
    app.get('/.well-known/oauth-authorization-server', (_req, res) => res.json(metadata));
  }
  app.use(
    mcpAuthRouter({
      provider,
      issuerUrl: new URL(origin),
      resourceServerUrl: mcpUrl,
      scopesSupported: options.scopes ?? ['tickets:read'],
      clientRegistrationOptions: { rateLimit: false },
      authorizationOptions: { rateLimit: false },
      tokenOptions: { rateLimit: false },
      revocationOptions: { rateLimit: false },
    }),
  );
  if (options.gatewayKey) {
    app.use('/mcp', (req, res, next) => {
      if (req.get('x-gateway-key') === options.gatewayKey) return next();
      gatewayRefusals++;
      res.status(403).json({ error: 'the gateway wants its key' });
    });
  }
  app.post(
    '/mcp',
    express.json(),
    requireBearerAuth({ verifier: provider, resourceMetadataUrl: getOAuthProtectedResourceMetadataUrl(mcpUrl) }),
    async (req, res) => {
      const who = String((req as unknown as { auth: AuthInfo }).auth.extra?.subject);
      const server = new Server({ name: 'oauth-fake', version: '1' }, { capabilities: { tools: {} } });
      server.setRequestHandler(ListToolsRequestSchema, () => ({
        tools: [{ name: 'whoami', description: 'Who the token belongs to', inputSchema: { type: 'object', properties: {} } }],
      }));
      server.setRequestHandler(CallToolRequestSchema, (request) => {
        calls.push({ tool: request.params.name, subject: who });
        return { content: [{ type: 'text', text: `signed in as ${who}` }] };
      });
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      res.on('close', () => {
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      await transport.handleRequest(req, res, req.body);
    },
  );

  return {
    url: mcpUrl.href,
    issuer: origin,
    signInAs: (next) => (subject = next),
    denyNext: () => (deny = true),
    calls,
    tokenRequests,
    registered,
    documentsFetched,
    refusedByGateway: () => gatewayRefusals,
    revoked,
    accessTokens: () => [...issued],
    expireAccessTokens: () => {
      for (const grant of access.values()) grant.expiresAt = 0;
    },
    revokeGrantsOf: (who) => refusedSubjects.add(who),
    delayRefresh: (ms) => (refreshDelayMs = ms),
    addClient: (client) => clients.set(client.client_id, client),
    close: () => closeServer(http),
  };
}
