// OAuth clients registered by dynamic registration (RFC 7591). A confidential client's secret is
// derived from the master key and its client id, so it is stored nowhere (as webhook trigger URLs are):
// rotating the master key changes it, and such a client registers again.
import type { OAuthRegisteredClientsStore } from '@modelcontextprotocol/sdk/server/auth/clients.js';
import type { OAuthClientInformationFull } from '@modelcontextprotocol/sdk/shared/auth.js';
import { hmacSha256 } from '../../lib/crypto.ts';
import { newId } from '../../lib/ids.ts';
import { getOAuthClient, insertOAuthClient } from '../../store/oauth.ts';
import type { ApiDeps } from '../context.ts';

const isPublic = (client: { token_endpoint_auth_method?: string | undefined }) => client.token_endpoint_auth_method === 'none';

export function oauthClients(deps: Pick<ApiDeps, 'db' | 'masterKey'>): OAuthRegisteredClientsStore {
  const secretOf = (clientId: string) => hmacSha256(deps.masterKey.derive('oauth-client-secret-v1'), clientId).toString('base64url');
  return {
    async getClient(clientId) {
      const info = await getOAuthClient(deps.db, clientId);
      if (!info) return undefined;
      const client = info as unknown as OAuthClientInformationFull;
      return isPublic(client) ? client : { ...client, client_secret: secretOf(clientId) };
    },
    async registerClient(client) {
      const clientId = newId('oac');
      const { client_secret: _secret, ...metadata } = client as OAuthClientInformationFull;
      const stored = { ...metadata, client_id: clientId, client_id_issued_at: Math.floor(Date.now() / 1000) };
      await insertOAuthClient(deps.db, clientId, stored);
      return isPublic(stored) ? stored : { ...stored, client_secret: secretOf(clientId), client_secret_expires_at: 0 };
    },
  };
}
