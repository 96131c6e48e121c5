// The OAuth server provider the official MCP SDK's handlers call (api/oauth/handlers.ts): clients,
// authorizations, codes and grants in PostgreSQL (store/oauth.ts). The SDK checks each request's shape,
// the client's credentials, redirect URIs and the PKCE verifier; this provider decides everything that
// is the service's: which scopes exist, which resources are its own, what a grant is (a key of its user).
import type { Response } from 'express';
import type { OAuthServerProvider, AuthorizationParams } from '@modelcontextprotocol/sdk/server/auth/provider.js';
import type { OAuthRegisteredClientsStore } from '@modelcontextprotocol/sdk/server/auth/clients.js';
import type { OAuthClientInformationFull, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type * as ErrorsModule from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type { Scope } from '../../contract/scopes.ts';
import { generateKey, authenticate } from '../../store/api-keys.ts';
import { randomToken } from '../../lib/ids.ts';
import {
  challengeOfCode,
  createAuthorization,
  endGrantOfReusedToken,
  exchangeCode,
  grantOfRefreshToken,
  refreshGrant,
  revokeGrant,
} from '../../store/oauth.ts';
import type { ApiDeps } from '../context.ts';
import { publicBaseUrl } from '../public-url.ts';
import { normalPath } from '../middleware/auth.ts';
import { oauthClients } from './clients.ts';
import type { ClientDocuments } from './client-documents.ts';
import { OAUTH_SCOPES } from './scopes.ts';

/** What a client that names no scope gets: all a grant may hold. */
const DEFAULT_OAUTH_SCOPES: Scope[] = [...OAUTH_SCOPES];

/** `clients`: how this provider's endpoint finds clients (api/oauth/clients.ts). */
export function oauthProvider(
  deps: ApiDeps,
  errors: typeof ErrorsModule,
  clients: { documents: ClientDocuments; fetchNewDocuments: boolean },
): OAuthServerProvider {
  const { InvalidGrantError, InvalidScopeError, InvalidTokenError } = errors;
  const clientsStore: OAuthRegisteredClientsStore = oauthClients(deps, errors, clients);
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
      // The request was checked before the SDK saw it (api/oauth/authorize-check.ts): known scopes, our resource.
      const asked = params.scopes?.length ? params.scopes : DEFAULT_OAUTH_SCOPES;
      const base = publicBaseUrl(deps.config, res.req);
      const resource = normalPath(params.resource!.pathname);
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
      if (!challenge) {
        // A code used twice: its grant goes too (whoever has it now may not be the client).
        const ended = await endGrantOfReusedToken(deps.db, client.client_id, code);
        throw new InvalidGrantError(
          ended ? 'The code was used already: the grant it made is revoked' : 'The code is unknown, used or expired',
        );
      }
      return challenge;
    },

    async exchangeAuthorizationCode(client, code, _verifier, redirectUri) {
      const accessToken = generateKey();
      const refreshToken = `rt_${randomToken(160)}`;
      // The code is spent and the grant made in one transaction: a failure between them spends nothing.
      const scopes = await exchangeCode(deps.db, {
        clientId: client.client_id,
        code,
        redirectUri,
        // Named for what it reaches, so two grants of one client tell apart in the keys' list.
        name: (resource) =>
          `OAuth: ${client.client_name ?? client.client_id}${resource ? ` for ${/^\/agent\/([^/]+)\/mcp$/.exec(resource)?.[1] ?? resource}` : ''}`.slice(
            0,
            200,
          ),
        accessToken,
        refreshToken,
        ...lifetimes(),
      });
      if (scopes === 'unknown') throw new InvalidGrantError('The code is unknown, used or expired');
      if (scopes === 'redirect') throw new InvalidGrantError('redirect_uri is not the one the code was asked with');
      return tokens(accessToken, refreshToken, scopes);
    },

    async exchangeRefreshToken(client, refreshToken, scopes) {
      // The access token is the grant's key, so a narrower one would narrow the grant for good (RFC 6749 §6
      // keeps the refresh token's scope): a refresh gives the grant's scopes, and asks for no others.
      if (scopes?.length) {
        const held = await grantOfRefreshToken(deps.db, client.client_id, refreshToken);
        if (!held) {
          const ended = await endGrantOfReusedToken(deps.db, client.client_id, refreshToken);
          throw new InvalidGrantError(
            ended
              ? 'The refresh token was rotated already: the grant is revoked'
              : 'The refresh token is unknown, used, revoked or expired',
          );
        }
        if (scopes.length !== held.length || scopes.some((scope) => !held.includes(scope as Scope))) {
          throw new InvalidScopeError(`A refresh gives the grant's scopes (${held.join(' ')}): sign in again for others`);
        }
      }
      const accessToken = generateKey();
      const next = `rt_${randomToken(160)}`;
      const refreshed = await refreshGrant(deps.db, client.client_id, refreshToken, {
        accessToken,
        refreshToken: next,
        ...lifetimes(),
      });
      if (!refreshed) {
        // A rotated refresh token presented again: the grant goes (the client or a thief holds a copy).
        const ended = await endGrantOfReusedToken(deps.db, client.client_id, refreshToken);
        throw new InvalidGrantError(
          ended
            ? 'The refresh token was rotated already: the grant is revoked; sign in again'
            : 'The refresh token is unknown, used, revoked or expired',
        );
      }
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
