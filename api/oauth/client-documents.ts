// Client ID metadata documents, the registration the MCP authorization spec prefers: a client's ID is
// the https URL of a JSON document it publishes (its name, redirect URIs, ...), so nothing is registered
// and a client is who controls that URL. Anyone can make the service read such a URL (an authorization
// request is unauthenticated), so the reading is bounded on every side:
// - its own outbound guard: public addresses only, unless OAUTH_CLIENT_DOCUMENT_ALLOW_CIDRS (empty by
//   default, whatever OUTBOUND_ALLOW_CIDRS allows webhooks) allows more; 5 s, 5 KiB, no redirects;
// - a new document is read only at the authorization endpoint, behind its per-address limit (the route's),
//   at most READS_AT_ONCE at once, one reading per URL at a time, and a failure is remembered 5 minutes;
// - documents first read within a day and holding no grant are bounded together (MAX_FRESH_DOCUMENTS),
//   apart from registered clients, so neither kind can crowd out the other;
// - a network failure is told as "could not be read" (the details go to the log), so the service is no
//   probe of other hosts' ports; what is wrong with a document itself is told, for its publisher.
// A document is served for its Cache-Control max-age (5 minutes to an hour; an hour without one); past
// that it is read again, and the last one still serves for a day while its URL fails (a timeout, a 5xx),
// never once it answers otherwise (a 404: the client is withdrawn; an invalid document).
import type { OAuthClientInformationFull } from '@modelcontextprotocol/sdk/shared/auth.js';
import { OAuthClientMetadataSchema } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { Db } from '../../store/db.ts';
import { countFreshClientsWithoutGrant, getDocumentClient, saveDocumentClient } from '../../store/oauth.ts';
import { createOutboundClient, outboundErrorText, type OutboundClient } from '../../lib/outbound.ts';
import type { ApiDeps } from '../context.ts';
import { redirectListProblem } from './redirect-uris.ts';

/** The spec's advice for a document's size. */
export const MAX_DOCUMENT_BYTES = 5 * 1024;
const FETCH_TIMEOUT_MS = 5_000;
const MIN_FRESH_MS = 5 * 60_000;
const MAX_FRESH_MS = 60 * 60_000;
/** How long the last document still serves while its URL fails to answer. */
const STALE_MS = 24 * 60 * 60_000;
/** How long a failed reading is remembered: the URL is not read again for each request meanwhile. */
const FAILURE_MEMORY_MS = 5 * 60_000;
const READS_AT_ONCE = 8;
/** Documents first read within a day that got no grant, all strangers together. */
const MAX_FRESH_DOCUMENTS = 1_000;
const LOOPBACK = ['localhost', '127.0.0.1', '[::1]'];

/** Whether a client ID names a document (a URL) rather than a registration of ours (`oac_...`). */
export function isDocumentClientId(clientId: string): boolean {
  return clientId.startsWith('https://') || clientId.startsWith('http://');
}

/**
 * Why this URL cannot be a client ID, or undefined: https with a path, in its canonical spelling, no
 * credentials, fragment or dot segments; plain http only to this machine's loopback, for a client
 * developed beside the service, which the document guard still refuses unless
 * OAUTH_CLIENT_DOCUMENT_ALLOW_CIDRS allows it.
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
  const sentPath = clientId.slice(clientId.indexOf('/', clientId.indexOf('//') + 2) >>> 0).split('?')[0]!;
  if (sentPath.split('/').some((segment) => segment === '.' || segment === '..')) return 'must not have . or .. segments';
  if (url.pathname === '/' || url.pathname === '') return 'must have a path';
  if (url.href !== clientId) return `must be written as ${url.href}`;
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
  const redirects = redirectListProblem(parsed.data.redirect_uris);
  if (redirects) return { problem: redirects };
  return { ...parsed.data, client_id: clientId, token_endpoint_auth_method: 'none' };
}

/** How long a document read now is served: its Cache-Control max-age within bounds; no-store or no-cache, the least. */
export function freshFor(cacheControl: string | undefined): number {
  const directives = (cacheControl ?? '').toLowerCase();
  if (/\b(no-store|no-cache)\b/.test(directives)) return MIN_FRESH_MS;
  const maxAge = /\bmax-age=(\d+)/.exec(directives);
  if (!maxAge) return MAX_FRESH_MS;
  return Math.min(MAX_FRESH_MS, Math.max(MIN_FRESH_MS, Number(maxAge[1]) * 1000));
}

type Reading = { client: OAuthClientInformationFull; freshForMs: number } | { problem: string; transient: boolean };

export interface ClientDocuments {
  /**
   * The client, from a fresh enough document, or why there is none to be had (the client is told, as
   * invalid_client). `fetchNew`: a document never read before may be read now.
   */
  clientOf(clientId: string, options: { fetchNew: boolean }): Promise<OAuthClientInformationFull | { problem: string }>;
}

export function clientDocuments(deps: {
  db: Db;
  outbound: OutboundClient;
  mayAdd: () => Promise<boolean>;
  log: (fields: object, message: string) => void;
}): ClientDocuments {
  const failures = new Map<string, { until: number; problem: string }>();
  const reading = new Map<string, Promise<Reading>>();

  async function read(clientId: string): Promise<Reading> {
    if (reading.size >= READS_AT_ONCE)
      return { problem: 'too many client documents are being read; try again in a moment', transient: true };
    try {
      const response = await deps.outbound.request(clientId, {
        headers: { accept: 'application/json' },
        timeoutMs: FETCH_TIMEOUT_MS,
        maxBodyBytes: MAX_DOCUMENT_BYTES + 1,
      });
      if (response.status !== 200) {
        deps.log({ clientId, status: response.status }, 'OAuth client document answered other than 200');
        return { problem: 'its URL could not be read (it must answer 200 with the document)', transient: response.status >= 500 };
      }
      if (Buffer.byteLength(response.bodySnippet) > MAX_DOCUMENT_BYTES)
        return { problem: `the document is larger than ${MAX_DOCUMENT_BYTES} bytes`, transient: false };
      const client = documentClient(clientId, response.bodySnippet);
      const cacheControl = response.headers['cache-control'];
      return 'problem' in client
        ? { problem: client.problem, transient: false }
        : { client, freshForMs: freshFor(Array.isArray(cacheControl) ? cacheControl.join(',') : cacheControl) };
    } catch (error) {
      deps.log({ clientId, error: outboundErrorText(error) }, 'OAuth client document not read');
      return { problem: 'its URL could not be read (it must answer 200 with the document)', transient: true };
    }
  }

  /** One reading per URL at a time: requests that come meanwhile share it. */
  function readOnce(clientId: string): Promise<Reading> {
    const running = reading.get(clientId);
    if (running) return running;
    const started = read(clientId).finally(() => reading.delete(clientId));
    reading.set(clientId, started);
    return started;
  }

  return {
    async clientOf(clientId, options) {
      const problem = clientIdProblem(clientId);
      if (problem) return { problem: `the client ID ${problem}` };
      const kept = await getDocumentClient(deps.db, clientId);
      const now = Date.now();
      if (kept && now < kept.freshUntil.getTime()) return kept.info as unknown as OAuthClientInformationFull;
      if (!kept && !options.fetchNew) return { problem: 'not read here yet: a sign-in starts at the authorization endpoint' };
      const failed = failures.get(clientId);
      if (failed && now < failed.until) return { problem: failed.problem };
      if (!kept && !(await deps.mayAdd())) return { problem: 'too many clients signed in lately without a grant; try again later' };
      const outcome = await readOnce(clientId);
      if ('client' in outcome) {
        failures.delete(clientId);
        await saveDocumentClient(deps.db, clientId, outcome.client as unknown as Record<string, unknown>, outcome.freshForMs);
        return outcome.client;
      }
      if (failures.size >= 10_000) failures.delete(failures.keys().next().value!);
      failures.set(clientId, { until: now + FAILURE_MEMORY_MS, problem: outcome.problem });
      // A URL that fails for a while leaves the last document serving; one that answers otherwise withdraws it.
      if (outcome.transient && kept && now - kept.fetchedAt.getTime() < STALE_MS) return kept.info as unknown as OAuthClientInformationFull;
      return { problem: outcome.problem };
    },
  };
}

/** The API's readings: one guard, one memory of failures and one bound on readings at once. */
export function apiClientDocuments(deps: Pick<ApiDeps, 'db' | 'config' | 'logger'>): ClientDocuments {
  return clientDocuments({
    db: deps.db,
    outbound: createOutboundClient({ allowCidrs: deps.config.oauth.clientDocumentAllowCidrs }),
    mayAdd: async () => (await countFreshClientsWithoutGrant(deps.db, 'document')) < MAX_FRESH_DOCUMENTS,
    log: (fields, message) => deps.logger.info(fields, message),
  });
}
