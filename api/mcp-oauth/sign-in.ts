// Signing a user in to one of their OAuth-protected MCP servers, as the service's end of the
// authorization code flow: start (discovery, the client, the authorization URL with PKCE, the sign-in
// kept under its `state`) and finish (the `state` taken once, the code exchanged, the tokens sealed).
// Every request to the servers goes through the outbound guard; nothing of the tokens is logged.
import { randomBytes } from 'node:crypto';
import { MCP_CONNECT_TTL_SECONDS } from '../../contract/operations/tools.ts';
import { createOutboundClient, outboundErrorText, OutboundRequestError } from '../../lib/outbound.ts';
import { discoverSignIn, errorText } from '../../lib/mcp/oauth/discovery.ts';
import { McpOAuthError } from '../../lib/mcp/oauth/errors.ts';
import { authorizationUrl, clientFor, exchangeCode, revokeTokens } from '../../lib/mcp/oauth/exchanges.ts';
import { oauthFetch } from '../../lib/mcp/oauth/fetch.ts';
import { responseTooLarge } from '../../lib/response-limits.ts';
import { ConflictError, GoneError, McpUnreachableError, ValidationError } from '../../lib/workflow-safe/errors.ts';
import { CONNECT_OPTION } from '../../lib/workflow-safe/approvals.ts';
import { openConnectApprovals } from '../../store/approvals.ts';
import { answerApproval } from '../approvals/workflows.ts';
import {
  deleteConnection,
  forgetRegisteredClient,
  registeredClient,
  saveConnection,
  saveConnectState,
  saveRegisteredClient,
  takeConnectState,
} from '../../store/mcp-connections.ts';
import type { McpServerRecord } from '../../store/mcp-servers.ts';
import { openSecrets } from '../../store/secrets.ts';
import { secretReferences } from '../../lib/channel-config.ts';
import { secretHostRefusal } from '../../lib/secret-hosts.ts';
import { filledHeaders, headerSecretNames, McpHeaderError } from '../../lib/mcp/headers.ts';
import type { ApiDeps } from '../context.ts';

export const CALLBACK_PATH = '/mcp-oauth/callback';
/** The service's client ID metadata document: its URL is the client ID where an authorization server takes such documents. */
export const CLIENT_DOCUMENT_PATH = '/mcp-oauth/client.json';

export function signIns(deps: ApiDeps) {
  const outbound = createOutboundClient({ allowCidrs: deps.config.outbound.allowCidrs });
  const fetchFor = (signal?: AbortSignal) => oauthFetch(outbound.fetch, deps.config.mcp.connectTimeoutMs, signal);

  /** Why the server's OAuth could not be used, as the 502 says it (never an address it resolved). */
  function unusable(server: McpServerRecord, error: unknown): McpUnreachableError {
    const tooLarge = responseTooLarge(error);
    const text =
      error instanceof McpOAuthError || tooLarge
        ? (tooLarge?.message ?? (error as Error).message)
        : error instanceof OutboundRequestError
          ? outboundErrorText(error)
          : errorText(error);
    return new McpUnreachableError(`The MCP server "${server.id}" cannot be signed in to: ${text}`);
  }

  /** The configured client's secret, opened, when `auth.clientSecret` names one; it may go only to the token endpoint's host. */
  async function configuredClient(userId: string, server: McpServerRecord, tokenEndpoint: string) {
    const auth = server.auth!;
    if (!auth.clientId) return {};
    const [name] = auth.clientSecret ? secretReferences({ secret: auth.clientSecret }) : [];
    if (!name) return { clientId: auth.clientId };
    const opened = await openSecrets(deps.db, deps.masterKeys, userId, [name]);
    const secret = opened.get(name);
    if (!secret) throw new ValidationError(`auth.clientSecret names the secret ${name}, which you do not have (PUT /secret/${name})`);
    const refused = secretHostRefusal(new Map([[name, secret]]), tokenEndpoint);
    if (refused) throw new ValidationError(`auth.clientSecret: ${refused}`);
    return { clientId: auth.clientId, clientSecret: secret.value };
  }

  /** The server's registered headers as every request to it carries them, their secrets filled in (only for allowed hosts). */
  async function registeredHeaders(userId: string, server: McpServerRecord): Promise<Record<string, string>> {
    const names = headerSecretNames(server.headers);
    const secrets = names.length > 0 ? await openSecrets(deps.db, deps.masterKeys, userId, names) : new Map();
    try {
      return filledHeaders(server.headers, server.url, secrets);
    } catch (error) {
      if (error instanceof McpHeaderError) throw new ValidationError(`The MCP server "${server.id}" cannot be reached: ${error.message}`);
      throw error;
    }
  }

  return {
    /**
     * The URL to send the user to, with the sign-in kept under its `state` for MCP_CONNECT_TTL_SECONDS.
     * `base` is where people reach the service (PUBLIC_BASE_URL, else the address the request came to):
     * the callback there is the redirect URI, kept with the sign-in for its exchange.
     */
    async start(userId: string, server: McpServerRecord, base: string, options: { signal?: AbortSignal } = {}) {
      const { signal } = options;
      const redirectUri = `${base}${CALLBACK_PATH}`;
      const documentUrl = `${base}${CLIENT_DOCUMENT_PATH}`;
      if (server.auth?.type !== 'oauth') {
        throw new ConflictError(
          `The MCP server "${server.id}" has no auth: it is reached with its headers. Register it with auth {"type": "oauth"} first`,
        );
      }
      const fetch = fetchFor(signal);
      /** The server's OAuth answers, and only those, become a 502 naming it. */
      const asking = async <T>(work: () => Promise<T>): Promise<T> => {
        try {
          return await work();
        } catch (error) {
          throw unusable(server, error);
        }
      };
      const headers = await registeredHeaders(userId, server);
      const discovered = await asking(() => discoverSignIn(server.url, fetch, headers));
      const scopes = server.auth.scopes ?? discovered.scopes;
      const configured = await configuredClient(userId, server, discovered.place.metadata.token_endpoint);
      // A client this service registered for the user's server before is used again: a registration per
      // sign-in would mean a consent screen each time and clients left behind.
      const clientPlace = { userId, serverId: server.id, authorizationServer: discovered.place.authorizationServer, redirectUri };
      const remembered = configured.clientId ? undefined : await registeredClient(deps.db, deps.masterKeys, clientPlace);
      const client = remembered ?? (await asking(() => clientFor(discovered.place, configured, redirectUri, scopes, fetch, documentUrl)));
      if (!remembered && !configured.clientId && client.client_id !== documentUrl) {
        await saveRegisteredClient(deps.db, deps.masterKey, clientPlace, client);
      }
      const state = randomBytes(32).toString('base64url');
      const authorization = await asking(() => authorizationUrl(discovered.place, client, { redirectUri, scopes, state }));
      await saveConnectState(deps.db, deps.masterKey, state, {
        userId,
        serverId: server.id,
        serverUrl: server.url,
        ...discovered.place,
        scopes,
        secrets: { codeVerifier: authorization.codeVerifier, client, redirectUri },
      });
      return {
        authorizationUrl: authorization.url.href,
        expiresAt: new Date(Date.now() + MCP_CONNECT_TTL_SECONDS * 1000).toISOString(),
        redirectUri,
      };
    },

    /**
     * The callback: the sign-in of `state` taken once (undefined when there is none to take), then, unless
     * the authorization server sent an error, its code exchanged and the tokens stored.
     */
    async finish(input: { state: string; code?: string; error?: string; errorDescription?: string; iss?: string }) {
      const taken = await takeConnectState(deps.db, deps.masterKeys, input.state, MCP_CONNECT_TTL_SECONDS);
      if (!taken) return { outcome: 'unknown' as const };
      const clientPlace = {
        userId: taken.userId,
        serverId: taken.serverId,
        authorizationServer: taken.authorizationServer,
        redirectUri: taken.secrets.redirectUri,
      };
      // RFC 9207: an answer naming another issuer (or none, where the server says it names one) may be a
      // mix-up, another authorization server's code sent here: it is not exchanged anywhere.
      const issuerSays = (taken.metadata as { authorization_response_iss_parameter_supported?: boolean })
        .authorization_response_iss_parameter_supported;
      if ((input.iss !== undefined || issuerSays === true) && input.iss !== taken.metadata.issuer) {
        return {
          outcome: 'refused' as const,
          serverId: taken.serverId,
          reason: 'the answer names another issuer than the authorization server asked (iss)',
        };
      }
      if (input.error || !input.code) {
        // A registered client the authorization server no longer knows is registered again at the next sign-in.
        if (input.error === 'invalid_client' || input.error === 'unauthorized_client') await forgetRegisteredClient(deps.db, clientPlace);
        const said = input.error ? `${input.error}${input.errorDescription ? `: ${input.errorDescription}` : ''}` : 'no code was given';
        return { outcome: 'refused' as const, serverId: taken.serverId, reason: said };
      }
      try {
        const tokens = await exchangeCode(
          taken,
          {
            client: taken.secrets.client,
            code: input.code,
            codeVerifier: taken.secrets.codeVerifier,
            redirectUri: taken.secrets.redirectUri,
          },
          fetchFor(),
        );
        await saveConnection(deps.db, deps.masterKey, {
          userId: taken.userId,
          serverId: taken.serverId,
          serverUrl: taken.serverUrl,
          place: taken,
          scopes: taken.scopes,
          tokens,
          client: taken.secrets.client,
        });
      } catch (error) {
        if ((error as { cause?: { errorCode?: string } }).cause?.errorCode === 'invalid_client')
          await forgetRegisteredClient(deps.db, clientPlace);
        const text = error instanceof McpOAuthError ? error.message : errorText(error);
        return { outcome: 'failed' as const, serverId: taken.serverId, reason: text };
      }
      // Turns waiting for a sign-in to this server go on now, whichever way it was started. The sign-in
      // stands whatever happens here: an approval not answered now expires as any other.
      await answerConnectApprovals(deps, taken.userId, taken.serverId);
      return { outcome: 'connected' as const, serverId: taken.serverId };
    },

    /** Signs out: revoked at the authorization server where it can be, and forgotten; undefined when there was no sign-in. */
    async disconnect(userId: string, serverId: string) {
      const removed = await deleteConnection(deps.db, deps.masterKeys, userId, serverId);
      if (!removed) return undefined;
      if (!removed.secrets) return { revoked: false };
      return { revoked: await revokeTokens(removed.connection, removed.secrets, fetchFor()) };
    },
  };
}

export type SignIns = ReturnType<typeof signIns>;

const made = new WeakMap<ApiDeps, SignIns>();

/** One per API process (its outbound client), for the routes that start and finish sign-ins. */
export function signInsOf(deps: ApiDeps): SignIns {
  let found = made.get(deps);
  if (!found) made.set(deps, (found = signIns(deps)));
  return found;
}

/** The connect approvals a finished sign-in answers; one answered or expired meanwhile is left as it is. */
async function answerConnectApprovals(deps: ApiDeps, userId: string, serverId: string): Promise<void> {
  let waiting;
  try {
    waiting = await openConnectApprovals(deps.db, userId, serverId);
  } catch (error) {
    deps.logger.warn({ userId, serverId, err: error }, 'could not read the questions waiting for a sign-in');
    return;
  }
  for (const approval of waiting) {
    try {
      await answerApproval(deps, approval, { choice: CONNECT_OPTION, note: null, via: 'link' }, { bySignIn: true });
    } catch (error) {
      // Expired meanwhile, or answered by another sign-in: nothing to do. Anything else is logged and the rest go on.
      if (error instanceof GoneError || error instanceof ConflictError) continue;
      deps.logger.warn({ approvalId: approval.id, err: error }, 'could not answer a question waiting for a sign-in');
    }
  }
}
