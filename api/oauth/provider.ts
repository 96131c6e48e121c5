// The OAuth server provider the official MCP SDK's handlers call (api/oauth/handlers.ts): clients,
// authorizations, codes and grants in PostgreSQL (store/oauth.ts). The SDK checks each request's shape,
// the client's credentials, redirect URIs and the PKCE verifier; this provider decides everything that
// is the service's: which scopes exist, which resources are its own, what a grant is (a key of its user).
import type { Response } from 'express';
import type { OAuthServerProvider, AuthorizationParams } from '@modelcontextprotocol/sdk/server/auth/provider.js';
import type { OAuthRegisteredClientsStore } from '@modelcontextprotocol/sdk/server/auth/clients.js';
import type { OAuthClientInformationFull, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type * as ErrorsModule from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { isScope, type Scope } from '../../contract/scopes.ts';
import { generateKey, authenticate } from '../../store/api-keys.ts';
import { randomToken } from '../../lib/ids.ts';
import {
  challengeOfCode,
  consumeCode,
  createAuthorization,
  grantOfRefreshToken,
  insertGrant,
  refreshGrant,
  revokeGrant,
} from '../../store/oauth.ts';
import type { ApiDeps } from '../context.ts';
import { publicBaseUrl } from '../public-url.ts';
import { normalPath } from '../middleware/auth.ts';
import { oauthClients } from './clients.ts';

/** What a client that names no scope gets: talking to the agent and reading its sessions, as an MCP client does. */
export const DEFAULT_OAUTH_SCOPES: Scope[] = ['read', 'sessions:write'];

/** An agent's MCP URL path: the only resources a grant may be bound to. */
const MCP_PATH = /^\/agent\/[^/]+\/mcp$/;

export function oauthProvider(deps: ApiDeps, errors: typeof ErrorsModule): OAuthServerProvider {
  const { InvalidGrantError, InvalidScopeError, InvalidTargetError, InvalidTokenError } = errors;
  const clientsStore: OAuthRegisteredClientsStore = oauthClients(deps);
  const lifetimes = () => ({
    accessTtlSeconds: deps.config.oauth.accessTokenTtlSeconds,
    refreshTtlDays: deps.config.oauth.refreshTokenTtlDays,
  });

  function tokens(accessToken: string, refreshToken: string, scopes: readonly string[]): OAuthTokens {
    return {
      access_token: accessToken,
      token_type: 'bearer',
      expires_in: deps.config.oauth.accessTokenTtlSeconds,
      refresh_token: refreshToken,
      scope: scopes.join(' '),
    };
  }

  return {
    clientsStore,

    async authorize(client: OAuthClientInformationFull, params: AuthorizationParams, res: Response) {
      const asked = params.scopes?.length ? params.scopes : DEFAULT_OAUTH_SCOPES;
      const unknown = asked.filter((scope) => !isScope(scope) || scope === 'admin');
      if (unknown.length) throw new InvalidScopeError(`Unknown scope: ${unknown.join(', ')}`);
      const base = publicBaseUrl(deps.config, res.req);
      let resource: string | undefined;
      if (params.resource) {
        const path = normalPath(params.resource.pathname);
        if (params.resource.origin !== new URL(base).origin || !MCP_PATH.test(path)) {
          throw new InvalidTargetError(`The resource must be an agent's MCP URL here (${base}/agent/<name>/mcp)`);
        }
        resource = path;
      }
      const id = await createAuthorization(deps.db, {
        clientId: client.client_id,
        redirectUri: params.redirectUri,
        codeChallenge: params.codeChallenge,
        scopes: asked as Scope[],
        state: params.state,
        resource,
      });
      res.redirect(302, `${base}/app/oauth/consent?request=${encodeURIComponent(id)}`);
    },

    async challengeForAuthorizationCode(client, code) {
      const challenge = await challengeOfCode(deps.db, client.client_id, code);
      if (!challenge) throw new InvalidGrantError('The code is unknown, used or expired');
      return challenge;
    },

    async exchangeAuthorizationCode(client, code, _verifier, redirectUri) {
      const exchanged = await consumeCode(deps.db, client.client_id, code);
      if (!exchanged) throw new InvalidGrantError('The code is unknown, used or expired');
      if (redirectUri !== undefined && redirectUri !== exchanged.redirectUri) {
        throw new InvalidGrantError('redirect_uri is not the one the code was asked with');
      }
      const accessToken = generateKey();
      const refreshToken = `rt_${randomToken(160)}`;
      await insertGrant(deps.db, {
        userId: exchanged.userId,
        clientId: client.client_id,
        name: `OAuth: ${client.client_name ?? client.client_id}`.slice(0, 200),
        scopes: exchanged.scopes,
        resource: exchanged.resource,
        accessToken,
        refreshToken,
        ...lifetimes(),
      });
      return tokens(accessToken, refreshToken, exchanged.scopes);
    },

    async exchangeRefreshToken(client, refreshToken, scopes) {
      let narrowed: Scope[] | undefined;
      if (scopes?.length) {
        const held = await grantOfRefreshToken(deps.db, client.client_id, refreshToken);
        if (!held) throw new InvalidGrantError('The refresh token is unknown, used, revoked or expired');
        const beyond = scopes.filter((scope) => !held.includes(scope as Scope));
        if (beyond.length) throw new InvalidScopeError(`The grant does not hold: ${beyond.join(', ')}`);
        narrowed = scopes as Scope[];
      }
      const accessToken = generateKey();
      const next = `rt_${randomToken(160)}`;
      const refreshed = await refreshGrant(deps.db, client.client_id, refreshToken, {
        accessToken,
        refreshToken: next,
        ...lifetimes(),
        ...(narrowed ? { scopes: narrowed } : {}),
      });
      if (!refreshed) throw new InvalidGrantError('The refresh token is unknown, used, revoked or expired');
      return tokens(accessToken, next, refreshed.scopes);
    },

    async verifyAccessToken(token) {
      const principal = await authenticate(deps.db, token);
      if (!principal) throw new InvalidTokenError('The token is unknown, expired or revoked');
      return { token, clientId: principal.keyId, scopes: principal.scopes };
    },

    async revokeToken(client, request) {
      await revokeGrant(deps.db, client.client_id, request.token);
    },
  };
}
