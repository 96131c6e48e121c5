// OAuth 2.1 records (schema/migrations/0040_oauth.sql): registered clients, authorizations from the
// request to the code's one exchange, and grants, which are keys of their user (api_keys rows with an
// expiring access token and a rotating refresh token). Tokens and codes are kept as SHA-256 hashes.
import { sha256Hex } from '../lib/crypto.ts';
import { newId } from '../lib/ids.ts';
import type { Scope } from '../contract/scopes.ts';
import { inTransaction, type Db } from './db.ts';
import { displayPrefix } from './api-keys.ts';

/** How long a client has to exchange a code once the user allowed it. */
export const CODE_TTL_SECONDS = 60;
/** How long the user has to decide on the consent page. */
export const AUTHORIZATION_TTL_SECONDS = 10 * 60;

export async function insertOAuthClient(db: Db, clientId: string, info: Record<string, unknown>): Promise<void> {
  await db.query('INSERT INTO oauth_clients (client_id, info) VALUES ($1, $2)', [clientId, info]);
}

/**
 * Clients registered (RFC 7591), or first read from their documents, within the last day that hold no
 * grant: what strangers can have stored at most, each kind with its own bound.
 */
export async function countFreshClientsWithoutGrant(db: Db, kind: 'registered' | 'document'): Promise<number> {
  const { rows } = await db.query<{ count: number }>(
    `SELECT count(*)::int AS count FROM oauth_clients c WHERE c.created_at > now() - interval '1 day'
        AND (c.document_fetched_at IS NOT NULL) = $1
        AND NOT EXISTS (SELECT 1 FROM api_keys k WHERE k.oauth_client_id = c.client_id)`,
    [kind === 'document'],
  );
  return rows[0]!.count;
}

/** A client ID metadata document's client as kept (api/oauth/client-documents.ts), with when it was fetched. */
export async function getDocumentClient(
  db: Db,
  clientId: string,
): Promise<{ info: Record<string, unknown>; fetchedAt: Date; freshUntil: Date } | undefined> {
  const { rows } = await db.query<{ info: Record<string, unknown>; document_fetched_at: Date; document_fresh_until: Date }>(
    'SELECT info, document_fetched_at, document_fresh_until FROM oauth_clients WHERE client_id = $1 AND document_fetched_at IS NOT NULL',
    [clientId],
  );
  const row = rows[0];
  return row && { info: row.info, fetchedAt: row.document_fetched_at, freshUntil: row.document_fresh_until };
}

/** Keeps what a client's document said just now (its grants and authorizations keep pointing at it). */
export async function saveDocumentClient(db: Db, clientId: string, info: Record<string, unknown>, freshForMs: number): Promise<void> {
  await db.query(
    `INSERT INTO oauth_clients (client_id, info, document_fetched_at, document_fresh_until)
     VALUES ($1, $2, now(), now() + make_interval(secs => $3::double precision / 1000))
     ON CONFLICT (client_id) DO UPDATE SET info = EXCLUDED.info, document_fetched_at = now(),
       document_fresh_until = EXCLUDED.document_fresh_until`,
    [clientId, info, freshForMs],
  );
}

export async function getOAuthClient(db: Db, clientId: string): Promise<Record<string, unknown> | undefined> {
  const { rows } = await db.query<{ info: Record<string, unknown> }>('SELECT info FROM oauth_clients WHERE client_id = $1', [clientId]);
  return rows[0]?.info;
}

export interface AuthorizationRequest {
  clientId: string;
  redirectUri: string;
  codeChallenge: string;
  scopes: Scope[];
  state: string | undefined;
  resource: string | undefined;
}

export async function createAuthorization(db: Db, request: AuthorizationRequest): Promise<string> {
  const id = newId('oar');
  await db.query(
    `INSERT INTO oauth_authorizations (id, client_id, redirect_uri, code_challenge, scopes, state, resource)
     VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [id, request.clientId, request.redirectUri, request.codeChallenge, request.scopes, request.state ?? null, request.resource ?? null],
  );
  return id;
}

export interface PendingAuthorization extends AuthorizationRequest {
  id: string;
  client: Record<string, unknown>;
  expiresAt: Date;
}

/** An authorization still waiting for its user's decision (undecided and not expired). */
export async function pendingAuthorization(db: Db, id: string): Promise<PendingAuthorization | undefined> {
  const { rows } = await db.query<{
    client_id: string;
    redirect_uri: string;
    code_challenge: string;
    scopes: Scope[];
    state: string | null;
    resource: string | null;
    info: Record<string, unknown>;
    expires_at: Date;
  }>(
    `SELECT a.client_id, a.redirect_uri, a.code_challenge, a.scopes, a.state, a.resource, c.info,
            a.created_at + $2::int * interval '1 second' AS expires_at
       FROM oauth_authorizations a JOIN oauth_clients c ON c.client_id = a.client_id
      WHERE a.id = $1 AND a.decided_at IS NULL AND a.created_at > now() - $2::int * interval '1 second'`,
    [id, AUTHORIZATION_TTL_SECONDS],
  );
  const row = rows[0];
  if (!row) return undefined;
  return {
    id,
    clientId: row.client_id,
    redirectUri: row.redirect_uri,
    codeChallenge: row.code_challenge,
    scopes: row.scopes,
    state: row.state ?? undefined,
    resource: row.resource ?? undefined,
    client: row.info,
    expiresAt: row.expires_at,
  };
}

/**
 * The user's decision, taken once: allowed with `granted` scopes and the code's hash, or denied (null).
 * False when the authorization was decided already or expired.
 */
export async function decideAuthorization(
  db: Db,
  id: string,
  decision: { userId: string; granted: Scope[]; code: string } | null,
): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE oauth_authorizations SET decided_at = now(), user_id = $2, granted_scopes = $3, code_hash = $4
      WHERE id = $1 AND decided_at IS NULL AND created_at > now() - $5::int * interval '1 second'`,
    [id, decision?.userId ?? null, decision?.granted ?? null, decision ? sha256Hex(decision.code) : null, AUTHORIZATION_TTL_SECONDS],
  );
  return rowCount === 1;
}

const LIVE_CODE = `code_hash = $2 AND client_id = $1 AND decided_at > now() - ${CODE_TTL_SECONDS} * interval '1 second'`;

/** The PKCE challenge of a live code of this client. */
export async function challengeOfCode(db: Db, clientId: string, code: string): Promise<string | undefined> {
  const { rows } = await db.query<{ code_challenge: string }>(`SELECT code_challenge FROM oauth_authorizations WHERE ${LIVE_CODE}`, [
    clientId,
    sha256Hex(code),
  ]);
  return rows[0]?.code_challenge;
}

export interface GrantTokens {
  accessToken: string;
  refreshToken: string;
  accessTtlSeconds: number;
  refreshTtlDays: number;
}

/**
 * Spends a live code of this client, once, and makes its grant: a key of the user named after the client,
 * holding the access token, with its refresh token; in one transaction. The grant's scopes, or why not:
 * `unknown` (no such live code), `redirect` (not the redirect URI the code was asked with; the code is spent).
 */
export async function exchangeCode(
  db: Db,
  exchange: { clientId: string; code: string; redirectUri: string | undefined; name: (resource: string | null) => string } & GrantTokens,
): Promise<Scope[] | 'unknown' | 'redirect'> {
  return inTransaction(db, async (client) => {
    const keyId = newId('key');
    const { rows } = await client.query<{ user_id: string; granted_scopes: Scope[]; redirect_uri: string; resource: string | null }>(
      `UPDATE oauth_authorizations SET code_hash = NULL, spent_code_hash = code_hash, grant_key_id = $3 WHERE ${LIVE_CODE}
       RETURNING user_id, granted_scopes, redirect_uri, resource`,
      [exchange.clientId, sha256Hex(exchange.code), keyId],
    );
    const code = rows[0];
    if (!code) return 'unknown';
    if (exchange.redirectUri !== undefined && exchange.redirectUri !== code.redirect_uri) return 'redirect';
    await client.query(
      `INSERT INTO api_keys (id, user_id, name, prefix, key_hash, scopes, source, expires_at, refresh_hash, refresh_expires_at,
                             oauth_client_id, resource)
       VALUES ($1, $2, $3, $4, $5, $6, 'user', now() + $7::int * interval '1 second', $8, now() + $9::int * interval '1 day', $10, $11)`,
      [
        keyId,
        code.user_id,
        exchange.name(code.resource),
        displayPrefix(exchange.accessToken),
        sha256Hex(exchange.accessToken),
        code.granted_scopes,
        exchange.accessTtlSeconds,
        sha256Hex(exchange.refreshToken),
        exchange.refreshTtlDays,
        exchange.clientId,
        code.resource,
      ],
    );
    return code.granted_scopes;
  });
}

/**
 * Replaces a grant's tokens given its live refresh token (which stops working: refresh tokens rotate).
 * The grant's scopes, or undefined when the refresh token is not a live one of this client.
 */
export async function refreshGrant(
  db: Db,
  clientId: string,
  refreshToken: string,
  next: GrantTokens,
): Promise<{ scopes: Scope[]; resource: string | null } | undefined> {
  const { rows } = await db.query<{ scopes: Scope[]; resource: string | null }>(
    `UPDATE api_keys SET key_hash = $3, prefix = $4, expires_at = now() + $5::int * interval '1 second', refresh_hash = $6,
                         previous_refresh_hash = refresh_hash,
                         refresh_expires_at = now() + $7::int * interval '1 day'
      WHERE refresh_hash = $2 AND oauth_client_id = $1 AND refresh_expires_at > now()
      RETURNING scopes, resource`,
    [
      clientId,
      sha256Hex(refreshToken),
      sha256Hex(next.accessToken),
      displayPrefix(next.accessToken),
      next.accessTtlSeconds,
      sha256Hex(next.refreshToken),
      next.refreshTtlDays,
    ],
  );
  return rows[0];
}

/**
 * A code this client exchanged once already, or a refresh token of its that was rotated: whoever presents
 * it again may not be the client, so the grant it made, or belongs to, is ended. True when one was.
 */
export async function endGrantOfReusedToken(db: Db, clientId: string, token: string): Promise<boolean> {
  const hash = sha256Hex(token);
  const { rowCount } = await db.query(
    `DELETE FROM api_keys k WHERE k.oauth_client_id = $1
        AND (k.previous_refresh_hash = $2
             OR k.id IN (SELECT a.grant_key_id FROM oauth_authorizations a WHERE a.client_id = $1 AND a.spent_code_hash = $2))`,
    [clientId, hash],
  );
  return (rowCount ?? 0) > 0;
}

/** The scopes of the grant a live refresh token of this client belongs to. */
export async function grantOfRefreshToken(db: Db, clientId: string, refreshToken: string): Promise<Scope[] | undefined> {
  const { rows } = await db.query<{ scopes: Scope[] }>(
    'SELECT scopes FROM api_keys WHERE refresh_hash = $2 AND oauth_client_id = $1 AND refresh_expires_at > now()',
    [clientId, sha256Hex(refreshToken)],
  );
  return rows[0]?.scopes;
}

/** Ends the grant either of its tokens belongs to (RFC 7009: both go). */
export async function revokeGrant(db: Db, clientId: string, token: string): Promise<void> {
  const hash = sha256Hex(token);
  await db.query('DELETE FROM api_keys WHERE oauth_client_id = $1 AND (key_hash = $2 OR refresh_hash = $2)', [clientId, hash]);
}

/** Authorizations past their use, grants whose refresh token expired, and clients with no grant after a day. */
export async function deleteStaleOAuth(db: Db): Promise<number> {
  const authorizations = await db.query(`DELETE FROM oauth_authorizations WHERE created_at < now() - interval '1 hour'`);
  const grants = await db.query(`DELETE FROM api_keys WHERE refresh_expires_at < now()`);
  // A document's client counts from its latest reading, and none goes in the middle of a sign-in.
  const clients = await db.query(
    `DELETE FROM oauth_clients c WHERE coalesce(c.document_fetched_at, c.created_at) < now() - interval '1 day'
        AND NOT EXISTS (SELECT 1 FROM api_keys k WHERE k.oauth_client_id = c.client_id)
        AND NOT EXISTS (SELECT 1 FROM oauth_authorizations a WHERE a.client_id = c.client_id)`,
  );
  return (authorizations.rowCount ?? 0) + (grants.rowCount ?? 0) + (clients.rowCount ?? 0);
}
