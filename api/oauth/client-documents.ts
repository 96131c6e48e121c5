// Client ID metadata documents, the registration the MCP authorization spec prefers: a client's ID is
// the https URL of a JSON document it publishes (its name, redirect URIs, ...), so nothing is registered
// and a client is who controls that URL. The service fetches the document through the outbound guard
// (the same rules as webhooks: no private addresses unless OUTBOUND_ALLOW_CIDRS allows them, a short
// timeout, a small body, no redirects), checks it names itself, and keeps it an hour before fetching it
// again; a fetch that fails keeps the last document for a day. Such a client is public: it proves
// itself with PKCE and its redirect URIs, never with a secret.
import type { OAuthClientInformationFull } from '@modelcontextprotocol/sdk/shared/auth.js';
import { OAuthClientMetadataSchema } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { Db } from '../../store/db.ts';
import { getDocumentClient, saveDocumentClient } from '../../store/oauth.ts';
import { outboundErrorText, type OutboundClient } from '../../lib/outbound.ts';

/** The spec's advice for a document's size. */
export const MAX_DOCUMENT_BYTES = 5 * 1024;
const FETCH_TIMEOUT_MS = 5_000;
const FRESH_MS = 60 * 60_000;
/** How long the last document still serves while its URL does not answer. */
const STALE_MS = 24 * 60 * 60_000;
const LOOPBACK = ['localhost', '127.0.0.1', '[::1]'];

/** Whether a client ID names a document (a URL) rather than a registration of ours (`oac_...`). */
export function isDocumentClientId(clientId: string): boolean {
  return clientId.startsWith('https://') || clientId.startsWith('http://');
}

/**
 * Why this URL cannot be a client ID, or undefined: https with a path, no credentials, fragment or dot
 * segments; plain http only to this machine's loopback, for a client developed beside the service (the
 * rule redirect URIs follow), which the outbound guard still refuses unless OUTBOUND_ALLOW_CIDRS allows it.
 */
export function clientIdProblem(clientId: string): string | undefined {
  let url: URL;
  try {
    url = new URL(clientId);
  } catch {
    return 'is not a URL';
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && LOOPBACK.includes(url.hostname))) return 'must be an https URL';
  if (url.username || url.password) return 'must not carry credentials';
  if (url.hash || clientId.includes('#')) return 'must not have a fragment';
  // new URL() resolves dot segments away, so the path is read as sent.
  const sentPath = clientId.slice(url.origin.length).split('?')[0]!;
  if (sentPath.split('/').some((segment) => segment === '.' || segment === '..')) return 'must not have . or .. segments';
  if (url.pathname === '/' || url.pathname === '') return 'must have a path';
  return undefined;
}

/** The client a document describes, checked; a message says what is wrong with it. */
export function documentClient(clientId: string, text: string): OAuthClientInformationFull | { problem: string } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { problem: 'the document is not JSON' };
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return { problem: 'the document is not a JSON object' };
  const document = json as Record<string, unknown>;
  if (document.client_id !== clientId) return { problem: 'the document\'s "client_id" is not its own URL' };
  if ('client_secret' in document || 'client_secret_expires_at' in document) return { problem: 'a document must not carry a secret' };
  const method = document.token_endpoint_auth_method ?? 'none';
  if (method !== 'none')
    return { problem: `token_endpoint_auth_method "${String(method)}" is not offered to a document's client; use "none"` };
  const parsed = OAuthClientMetadataSchema.safeParse(document);
  if (!parsed.success) return { problem: `the document is not client metadata: ${parsed.error.issues[0]?.message ?? 'invalid'}` };
  return { ...parsed.data, client_id: clientId, token_endpoint_auth_method: 'none' };
}

export interface ClientDocuments {
  /** The client, from a fresh enough document, or why there is none to be had (the client is told, as invalid_client). */
  clientOf(clientId: string): Promise<OAuthClientInformationFull | { problem: string }>;
}

/** `mayAdd`: whether a client not kept yet may be (strangers' clients are bounded together, api/oauth/clients.ts). */
export function clientDocuments(deps: { db: Db; outbound: OutboundClient; mayAdd: () => Promise<boolean> }): ClientDocuments {
  /** Fetches and checks the document; a string says why there is none. */
  async function fetchDocument(clientId: string): Promise<OAuthClientInformationFull | string> {
    const problem = clientIdProblem(clientId);
    if (problem) return `the client ID ${problem}`;
    try {
      const response = await deps.outbound.request(clientId, {
        headers: { accept: 'application/json' },
        timeoutMs: FETCH_TIMEOUT_MS,
        maxBodyBytes: MAX_DOCUMENT_BYTES + 1,
      });
      if (response.status !== 200) return `its URL answered ${response.status}`;
      if (Buffer.byteLength(response.bodySnippet) > MAX_DOCUMENT_BYTES) return `the document is larger than ${MAX_DOCUMENT_BYTES} bytes`;
      const client = documentClient(clientId, response.bodySnippet);
      return 'problem' in client ? client.problem : client;
    } catch (error) {
      return `its URL could not be read (${outboundErrorText(error)})`;
    }
  }

  return {
    async clientOf(clientId) {
      const kept = await getDocumentClient(deps.db, clientId);
      const age = kept ? Date.now() - kept.fetchedAt.getTime() : Infinity;
      if (kept && age < FRESH_MS) return kept.info as unknown as OAuthClientInformationFull;
      if (!kept && !(await deps.mayAdd())) return { problem: 'too many clients signed in lately without a grant; try again later' };
      const fetched = await fetchDocument(clientId);
      if (typeof fetched !== 'string') {
        await saveDocumentClient(deps.db, clientId, fetched as unknown as Record<string, unknown>);
        return fetched;
      }
      return kept && age < STALE_MS ? (kept.info as unknown as OAuthClientInformationFull) : { problem: fetched };
    },
  };
}
