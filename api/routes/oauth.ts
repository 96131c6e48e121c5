// OAuth 2.1 for the agents' MCP URLs (contract/operations/oauth.ts, docs/mcp.md): the metadata documents
// MCP clients discover the service by, the SDK's protocol endpoints, and the consent page's API.
import { OPERATIONS } from '../../contract/operations/index.ts';
import type { Scope } from '../../contract/scopes.ts';
import { ConflictError, ForbiddenError, NotFoundError } from '../../lib/workflow-safe/errors.ts';
import { randomToken } from '../../lib/ids.ts';
import { decideAuthorization, getDocumentClient, pendingAuthorization } from '../../store/oauth.ts';
import type { ApiDeps } from '../context.ts';
import { createRateLimiter } from '../middleware/rate-limit.ts';
import { defineRoute } from '../route.ts';
import { publicBaseUrl } from '../public-url.ts';
import { oauthHandlers } from '../oauth/handlers.ts';
import { OAUTH_SCOPES } from '../oauth/scopes.ts';
import { isDocumentClientId } from '../oauth/client-documents.ts';
import { authorizeProblem } from '../oauth/authorize-check.ts';
import { refusePastKeyLimit } from '../user-limits.ts';
import { countKeys } from '../../store/api-keys.ts';
import { findAgent } from '../../store/agents.ts';

function noAuthorization(id: string): NotFoundError {
  return new NotFoundError(`There is no undecided authorization "${id}": it was decided already, or asked more than 10 minutes ago`);
}

export function oauthRoutes(deps: ApiDeps) {
  const handle = oauthHandlers(deps);
  const registrations = createRateLimiter({
    db: deps.db,
    points: deps.config.oauth.registrationsPerWindow,
    windowSeconds: deps.config.limits.rateLimitWindowSeconds,
    prefix: 'oauthreg',
  });
  const documentReadings = createRateLimiter({
    db: deps.db,
    points: deps.config.oauth.registrationsPerWindow,
    windowSeconds: deps.config.limits.rateLimitWindowSeconds,
    prefix: 'oauthdoc',
  });
  return [
    defineRoute(OPERATIONS.getAuthorizationServerMetadata, {
      handle({ req }) {
        const base = publicBaseUrl(deps.config, req);
        return {
          status: 200,
          body: {
            issuer: base,
            authorization_endpoint: `${base}/oauth/authorize`,
            token_endpoint: `${base}/oauth/token`,
            registration_endpoint: `${base}/oauth/register`,
            // A client may name itself by the https URL of its metadata document (api/oauth/client-documents.ts).
            client_id_metadata_document_supported: true,
            revocation_endpoint: `${base}/oauth/revoke`,
            response_types_supported: ['code'],
            grant_types_supported: ['authorization_code', 'refresh_token'],
            code_challenge_methods_supported: ['S256'],
            // The SDK's handlers read a client's secret from the form only (client_secret_post).
            token_endpoint_auth_methods_supported: ['none', 'client_secret_post'],
            revocation_endpoint_auth_methods_supported: ['none', 'client_secret_post'],
            scopes_supported: OAUTH_SCOPES,
            authorization_response_iss_parameter_supported: true,
            service_documentation: `${base}/openapi.json`,
          },
        };
      },
    }),
    defineRoute(OPERATIONS.getProtectedResourceMetadata, {
      handle({ req, params }) {
        const base = publicBaseUrl(deps.config, req);
        return {
          status: 200,
          body: {
            resource: `${base}/agent/${encodeURIComponent(params.name!)}/mcp`,
            authorization_servers: [base],
            // What an MCP client needs, and so asks for (SEP-835): talking to the agent and reading its sessions.
            scopes_supported: OAUTH_SCOPES,
            bearer_methods_supported: ['header'],
            resource_name: `Agent ${params.name}`,
          },
        };
      },
    }),
    defineRoute(OPERATIONS.authorizeOAuth, {
      async handle({ req, res }) {
        const problem = authorizeProblem(req.query as Record<string, unknown>, publicBaseUrl(deps.config, req));
        if (problem) return { status: 400, body: problem, headers: { 'cache-control': 'no-store' } };
        // A client ID metadata document not read before is read now: bounded per address as registrations are.
        const clientId = req.query.client_id;
        if (typeof clientId === 'string' && isDocumentClientId(clientId) && !(await getDocumentClient(deps.db, clientId)))
          await documentReadings.consume(`ip:${req.ip ?? 'unknown'}`);
        return handle('authorize', req, res);
      },
    }),
    defineRoute(OPERATIONS.exchangeOAuthToken, { bodyCheckedByHandler: true, handle: ({ req, res }) => handle('token', req, res) }),
    defineRoute(OPERATIONS.registerOAuthClient, {
      bodyCheckedByHandler: true,
      async handle({ req, res }) {
        await registrations.consume(`ip:${req.ip ?? 'unknown'}`);
        return handle('register', req, res);
      },
    }),
    defineRoute(OPERATIONS.revokeOAuthToken, { bodyCheckedByHandler: true, handle: ({ req, res }) => handle('revoke', req, res) }),
    defineRoute(OPERATIONS.getOAuthAuthorization, {
      async handle({ params }) {
        const pending = await pendingAuthorization(deps.db, params.id!);
        if (!pending) throw noAuthorization(params.id!);
        const name = typeof pending.client.client_name === 'string' ? pending.client.client_name : pending.clientId;
        const uri = typeof pending.client.client_uri === 'string' ? { uri: pending.client.client_uri } : {};
        return {
          status: 200,
          body: {
            id: pending.id,
            client: { clientId: pending.clientId, name, ...uri },
            redirectHost: new URL(pending.redirectUri).host,
            scopes: pending.scopes,
            ...(pending.resource ? { resource: pending.resource } : {}),
            expiresAt: pending.expiresAt.toISOString(),
          },
        };
      },
    }),
    defineRoute(OPERATIONS.decideOAuthAuthorization, {
      async handle({ req, params, body, principal }) {
        const pending = await pendingAuthorization(deps.db, params.id!);
        if (!pending) throw noAuthorization(params.id!);
        // A client ID metadata document read again meanwhile may have withdrawn the redirect URI asked for.
        const { redirectUriMatches } = await import('@modelcontextprotocol/sdk/server/auth/handlers/authorize.js');
        const listed = Array.isArray(pending.client.redirect_uris) ? (pending.client.redirect_uris as unknown[]) : [];
        if (!listed.some((uri) => typeof uri === 'string' && redirectUriMatches(pending.redirectUri, uri))) {
          throw new ConflictError(`The client no longer lists ${pending.redirectUri} among its redirect URIs: start the sign-in again`);
        }
        // What was asked, as far as the approving key holds it: a narrowed key grants no more than itself.
        const granted = pending.scopes.filter((scope): scope is Scope => scope !== 'admin' && principal!.scopes.includes(scope));
        if (body.allow && granted.length === 0) {
          throw new ForbiddenError(`Your key holds none of the scopes asked for (${pending.scopes.join(', ')})`);
        }
        if (body.allow) {
          // A grant is one of the user's keys, under the same bound; and reaches an agent the user has.
          refusePastKeyLimit(await countKeys(deps.db, principal!.userId), deps.config.limits.keysPerUser);
          const agentName = pending.resource ? /^\/agent\/([^/]+)\/mcp$/.exec(pending.resource)?.[1] : undefined;
          if (agentName !== undefined && !(await findAgent(deps.db, principal!.userId, agentName))) {
            throw new NotFoundError(`You have no agent named "${agentName}": the client asks to reach ${pending.resource}`);
          }
        }
        const code = randomToken(160);
        const decided = await decideAuthorization(deps.db, pending.id, body.allow ? { userId: principal!.userId, granted, code } : null);
        if (!decided) throw noAuthorization(params.id!);
        const back = new URL(pending.redirectUri);
        if (body.allow) back.searchParams.set('code', code);
        else back.searchParams.set('error', 'access_denied');
        if (pending.state !== undefined) back.searchParams.set('state', pending.state);
        // RFC 9207: which server answered, for a client that talks to several.
        back.searchParams.set('iss', publicBaseUrl(deps.config, req));
        return { status: 200, body: { redirectUrl: back.toString() } };
      },
    }),
  ];
}
