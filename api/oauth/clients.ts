// OAuth clients: a client ID metadata document's (api/oauth/client-documents.ts: the ID is its URL), or
// one registered by dynamic registration (RFC 7591), by anyone: so what one may store is
// bounded (a few redirect URIs of bounded length, no keys or statements, a small document) and so is
// what all of them may (MAX_FRESH_CLIENTS registered within a day with no grant). A confidential client's
// secret is derived from the master key and its client id, so it is stored nowhere (as webhook trigger
// URLs are): rotating the master key changes it, and such a client registers again.
import type { OAuthRegisteredClientsStore } from '@modelcontextprotocol/sdk/server/auth/clients.js';
import type { OAuthClientInformationFull } from '@modelcontextprotocol/sdk/shared/auth.js';
import type * as ErrorsModule from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { hmacSha256 } from '../../lib/crypto.ts';
import { newId } from '../../lib/ids.ts';
import { countFreshClientsWithoutGrant, getOAuthClient, insertOAuthClient } from '../../store/oauth.ts';
import type { ApiDeps } from '../context.ts';
import { createOutboundClient } from '../../lib/outbound.ts';
import { clientDocuments, isDocumentClientId } from './client-documents.ts';

const MAX_REDIRECT_URIS = 10;
const MAX_URI_CHARS = 2_000;
const MAX_STORED_BYTES = 8 * 1024;
/** Clients registered within a day that got no grant, all strangers together: past it, registration waits. */
const MAX_FRESH_CLIENTS = 10_000;

const isPublic = (client: { token_endpoint_auth_method?: string | undefined }) => client.token_endpoint_auth_method === 'none';

/**
 * Why a redirect URI is refused, or undefined: HTTPS, plain HTTP to this machine's loopback (a desktop
 * client's local listener), or an application's own scheme (RFC 8252, `cursor://...`); the SDK refuses
 * `javascript:` and the like already.
 */
function redirectProblem(uri: string): string | undefined {
  if (uri.length > MAX_URI_CHARS) return `a redirect URI is longer than ${MAX_URI_CHARS} characters`;
  const url = new URL(uri);
  if (url.protocol === 'http:' && !['localhost', '127.0.0.1', '[::1]'].includes(url.hostname)) {
    return `${uri}: plain http is allowed only to localhost; use https`;
  }
  if (url.protocol === 'file:') return `${uri}: not a redirect URI`;
  return undefined;
}

export function oauthClients(deps: Pick<ApiDeps, 'db' | 'masterKey' | 'config'>, errors: typeof ErrorsModule): OAuthRegisteredClientsStore {
  const documents = clientDocuments({
    db: deps.db,
    outbound: createOutboundClient({ allowCidrs: deps.config.outbound.allowCidrs }),
    mayAdd: async () => (await countFreshClientsWithoutGrant(deps.db)) < MAX_FRESH_CLIENTS,
  });
  const secretOf = (clientId: string) => hmacSha256(deps.masterKey.derive('oauth-client-secret-v1'), clientId).toString('base64url');
  return {
    async getClient(clientId) {
      if (isDocumentClientId(clientId)) {
        const client = await documents.clientOf(clientId);
        if ('problem' in client) throw new errors.InvalidClientError(`The client ID metadata document at ${clientId}: ${client.problem}`);
        return client;
      }
      const info = await getOAuthClient(deps.db, clientId);
      if (!info) return undefined;
      const client = info as unknown as OAuthClientInformationFull;
      return isPublic(client) ? client : { ...client, client_secret: secretOf(clientId), client_secret_expires_at: 0 };
    },
    async registerClient(client) {
      const {
        client_secret: _secret,
        client_secret_expires_at: _expiry,
        jwks: _jwks,
        software_statement: _statement,
        ...metadata
      } = client as OAuthClientInformationFull;
      if (metadata.redirect_uris.length > MAX_REDIRECT_URIS) {
        throw new errors.InvalidClientMetadataError(`At most ${MAX_REDIRECT_URIS} redirect URIs`);
      }
      const problem = metadata.redirect_uris.map((uri) => redirectProblem(String(uri))).find((found) => found !== undefined);
      if (problem) throw new errors.InvalidClientMetadataError(problem);
      const clientId = newId('oac');
      const stored = { ...metadata, client_id: clientId, client_id_issued_at: Math.floor(Date.now() / 1000) };
      if (Buffer.byteLength(JSON.stringify(stored)) > MAX_STORED_BYTES) {
        throw new errors.InvalidClientMetadataError(`The client metadata is larger than ${MAX_STORED_BYTES} bytes`);
      }
      if ((await countFreshClientsWithoutGrant(deps.db)) >= MAX_FRESH_CLIENTS) {
        throw new errors.TemporarilyUnavailableError('Too many clients registered lately; try again later');
      }
      await insertOAuthClient(deps.db, clientId, stored);
      return isPublic(stored) ? stored : { ...stored, client_secret: secretOf(clientId), client_secret_expires_at: 0 };
    },
  };
}
