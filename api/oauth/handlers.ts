// The official MCP SDK's OAuth endpoint handlers (authorize, token, registration, revocation), loaded on
// first use and run inside the contract's routes (api/routes/oauth.ts): each is an Express router the
// SDK builds for its own path, so it is mounted at that path in a router of its own and handed the request.
import express, { type Request, type RequestHandler, type Response } from 'express';
import { runSubRouter } from '../sub-router.ts';
import type { ApiDeps } from '../context.ts';
import { oauthProvider } from './provider.ts';
import { apiClientDocuments } from './client-documents.ts';

export type OAuthEndpoint = 'authorize' | 'token' | 'register' | 'revoke';

export type OAuthHandlers = Record<OAuthEndpoint, RequestHandler>;

/** Each endpoint's router, mounted at its path (the SDK's routers answer at their own root). */
async function buildHandlers(deps: ApiDeps): Promise<OAuthHandlers> {
  const [authorize, token, register, revoke, errors] = await Promise.all([
    import('@modelcontextprotocol/sdk/server/auth/handlers/authorize.js'),
    import('@modelcontextprotocol/sdk/server/auth/handlers/token.js'),
    import('@modelcontextprotocol/sdk/server/auth/handlers/register.js'),
    import('@modelcontextprotocol/sdk/server/auth/handlers/revoke.js'),
    import('@modelcontextprotocol/sdk/server/auth/errors.js'),
  ]);
  // A client ID metadata document never read before is read at the authorization endpoint only, behind
  // its per-address limit (api/routes/oauth.ts); the other endpoints serve the clients that started there.
  const documents = apiClientDocuments(deps);
  const provider = oauthProvider(deps, errors, { documents, fetchNewDocuments: false });
  const authorizing = oauthProvider(deps, errors, { documents, fetchNewDocuments: true });
  // The API's own limits apply (per address, and per address for registrations): the SDK's are off.
  const at = (path: string, handler: RequestHandler) => express.Router().use(path, handler);
  return {
    authorize: at('/oauth/authorize', authorize.authorizationHandler({ provider: authorizing, rateLimit: false })),
    token: at('/oauth/token', token.tokenHandler({ provider, rateLimit: false })),
    register: at(
      '/oauth/register',
      // Secrets never expire (they are derived, not stored); the store says so in what it answers.
      register.clientRegistrationHandler({ clientsStore: provider.clientsStore, rateLimit: false, clientSecretExpirySeconds: 0 }),
    ),
    revoke: at('/oauth/revoke', revoke.revocationHandler({ provider, rateLimit: false })),
  };
}

export function oauthHandlers(deps: ApiDeps): (endpoint: OAuthEndpoint, req: Request, res: Response) => Promise<undefined> {
  let handlers: Promise<OAuthHandlers> | undefined;
  return async (endpoint, req, res) => {
    // A failed load (a broken install) is tried again at the next request rather than kept.
    handlers ??= buildHandlers(deps).catch((error: unknown) => {
      handlers = undefined;
      throw error;
    });
    return runSubRouter((await handlers)[endpoint], req, res);
  };
}
