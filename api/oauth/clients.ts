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
import { isDocumentClientId, type ClientDocuments } from './client-documents.ts';
import { redirectListProblem } from './redirect-uris.ts';

const MAX_STORED_BYTES = 8 * 1024;
/** Clients registered within a day that got no grant, all strangers together: past it, registration waits. */
const MAX_FRESH_CLIENTS = 10_000;

const isPublic = (client: { token_endpoint_auth_method?: string | undefined }) => client.token_endpoint_auth_method === 'none';

/**
 * `fetchNewDocuments`: whether a client ID metadata document never read before is fetched now (only the
 * authorization endpoint, behind its per-address limit, does; the token and revocation endpoints serve
 * clients that started there).
 */
export function oauthClients(
  deps: Pick<ApiDeps, 'db' | 'masterKey'>,
  errors: typeof ErrorsModule,
  options: { documents: ClientDocuments; fetchNewDocuments: boolean },
): OAuthRegisteredClientsStore {
  const secretOf = (clientId: string) => hmacSha256(deps.masterKey.derive('oauth-client-secret-v1'), clientId).toString('base64url');
  return {
    async getClient(clientId) {
      if (isDocumentClientId(clientId)) {
        const client = await options.documents.clientOf(clientId, { fetchNew: options.fetchNewDocuments });
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
      const problem = redirectListProblem(metadata.redirect_uris);
      if (problem) throw new errors.InvalidClientMetadataError(problem);
      const clientId = newId('oac');
      const stored = { ...metadata, client_id: clientId, client_id_issued_at: Math.floor(Date.now() / 1000) };
      if (Buffer.byteLength(JSON.stringify(stored)) > MAX_STORED_BYTES) {
        throw new errors.InvalidClientMetadataError(`The client metadata is larger than ${MAX_STORED_BYTES} bytes`);
      }
      if ((await countFreshClientsWithoutGrant(deps.db, 'registered')) >= MAX_FRESH_CLIENTS) {
        throw new errors.TemporarilyUnavailableError('Too many clients registered lately; try again later');
      }
      await insertOAuthClient(deps.db, clientId, stored);
      return isPublic(stored) ? stored : { ...stored, client_secret: secretOf(clientId), client_secret_expires_at: 0 };
    },
  };
}
