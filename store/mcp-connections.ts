// Users' sign-ins to their OAuth-protected MCP servers (migration 0042): the connection (tokens and the
// registered client's credentials, sealed, bound to the user and server) and the sign-ins under way.
// Nothing secret leaves this module unsealed except to the code that sends it (lib/mcp/oauth/).
import type { AuthorizationServerMetadata, OAuthClientInformationMixed, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { ConnectionAccess, ConnectionSecrets, OAuthServerPlace, Refreshed, StoredConnection } from '../lib/mcp/oauth/types.ts';
import type { MasterKey } from '../lib/master-key.ts';
import { sha256Hex } from '../lib/crypto.ts';
import { inTransaction, type Db, type DbClient } from './db.ts';
import { open, seal, type Sealed } from './secret-box.ts';

export interface McpConnection extends StoredConnection {
  serverId: string;
  scopes: string[];
  connectedAt: Date;
  refreshedAt: Date | null;
  /** Absent once a refusal dropped them. */
  sealed: Sealed | null;
}

/** What a connection and a sign-in under way both keep of the server and where it signs in. */
interface SignInPlaceRow {
  server_id: string;
  server_url: string;
  authorization_server: string;
  metadata: AuthorizationServerMetadata;
  resource: string | null;
  scopes: string[];
}

interface ConnectionRow extends SignInPlaceRow {
  key_id: string | null;
  nonce: Buffer | null;
  ciphertext: Buffer | null;
  auth_tag: Buffer | null;
  expires_at: Date | null;
  needs_sign_in: string | null;
  connected_at: Date;
  refreshed_at: Date | null;
}

/** The fields a connection and a sign-in under way share, read off either row. */
const placeOf = (row: SignInPlaceRow) => ({
  serverId: row.server_id,
  serverUrl: row.server_url,
  authorizationServer: row.authorization_server,
  metadata: row.metadata,
  resource: row.resource,
  scopes: row.scopes,
});

const connectionContext = (userId: string, serverId: string) => `mcp-oauth/${userId}/${serverId}`;
const stateContext = (userId: string, serverId: string) => `mcp-oauth-state/${userId}/${serverId}`;

function toConnection(row: ConnectionRow): McpConnection {
  return {
    ...placeOf(row),
    expiresAt: row.expires_at,
    needsSignIn: row.needs_sign_in,
    connectedAt: row.connected_at,
    refreshedAt: row.refreshed_at,
    sealed:
      row.key_id && row.nonce && row.ciphertext && row.auth_tag
        ? { keyId: row.key_id, nonce: row.nonce, ciphertext: row.ciphertext, authTag: row.auth_tag }
        : null,
  };
}

/** The tokens and client of a connection; only for sending them. */
export function openConnection(keys: readonly MasterKey[], userId: string, connection: McpConnection): ConnectionSecrets | undefined {
  if (!connection.sealed) return undefined;
  return JSON.parse(open(keys, connection.sealed, connectionContext(userId, connection.serverId))) as ConnectionSecrets;
}

/** When tokens answered with `expires_in` (seconds) run out, counted from now. */
const expiryOf = (tokens: OAuthTokens) => (typeof tokens.expires_in === 'number' ? new Date(Date.now() + tokens.expires_in * 1000) : null);
const scopesOf = (tokens: OAuthTokens, asked: readonly string[]) => (tokens.scope ? tokens.scope.split(' ').filter(Boolean) : [...asked]);

export async function getConnection(db: Db | DbClient, userId: string, serverId: string): Promise<McpConnection | undefined> {
  const { rows } = await db.query<ConnectionRow>('SELECT * FROM mcp_connections WHERE user_id = $1 AND server_id = $2', [userId, serverId]);
  return rows[0] && toConnection(rows[0]);
}

/** Every connection of a user, by server id (GET /mcps). */
export async function listConnections(db: Db, userId: string): Promise<Map<string, McpConnection>> {
  const { rows } = await db.query<ConnectionRow>('SELECT * FROM mcp_connections WHERE user_id = $1', [userId]);
  return new Map(rows.map((row) => [row.server_id, toConnection(row)]));
}

/** A finished sign-in: the connection, replacing any earlier one of the user and server. */
export async function saveConnection(
  db: Db,
  masterKey: MasterKey,
  input: { userId: string; serverId: string; serverUrl: string; place: OAuthServerPlace; scopes: readonly string[] } & ConnectionSecrets,
): Promise<void> {
  const sealed = seal(
    masterKey,
    JSON.stringify({ tokens: input.tokens, client: input.client }),
    connectionContext(input.userId, input.serverId),
  );
  await db.query(
    `INSERT INTO mcp_connections (user_id, server_id, server_url, authorization_server, metadata, resource, scopes,
                                  key_id, nonce, ciphertext, auth_tag, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
     ON CONFLICT (user_id, server_id) DO UPDATE
       SET server_url = EXCLUDED.server_url, authorization_server = EXCLUDED.authorization_server,
           metadata = EXCLUDED.metadata, resource = EXCLUDED.resource, scopes = EXCLUDED.scopes,
           key_id = EXCLUDED.key_id, nonce = EXCLUDED.nonce, ciphertext = EXCLUDED.ciphertext,
           auth_tag = EXCLUDED.auth_tag, expires_at = EXCLUDED.expires_at, needs_sign_in = NULL,
           connected_at = now(), refreshed_at = NULL`,
    [
      input.userId,
      input.serverId,
      input.serverUrl,
      input.place.authorizationServer,
      JSON.stringify(input.place.metadata),
      input.place.resource,
      scopesOf(input.tokens, input.scopes),
      sealed.keyId,
      sealed.nonce,
      sealed.ciphertext,
      sealed.authTag,
      expiryOf(input.tokens),
    ],
  );
}

/** How long a refresh waits for another process's refresh of the same sign-in (which ends by its own timeout). */
const REFRESH_LOCK_WAIT_MS = 30_000;

/** The tokens are no good any more: dropped, and the user asked to sign in again. */
async function dropTokens(db: Db | DbClient, userId: string, serverId: string, reason: string): Promise<void> {
  await db.query(
    `UPDATE mcp_connections SET key_id = NULL, nonce = NULL, ciphertext = NULL, auth_tag = NULL, expires_at = NULL, needs_sign_in = $3
      WHERE user_id = $1 AND server_id = $2`,
    [userId, serverId, reason],
  );
}

/**
 * Runs `refresh` with the connection's row locked, so one process at a time refreshes one user's
 * tokens for one server (a refresh token is often good for one use). `refresh` gets the connection as
 * it stands once the lock is held: another process may have refreshed it meanwhile, and then it answers
 * without asking the server. What it returns is stored in the same transaction; a refusal drops the
 * tokens and marks the connection for a new sign-in. Undefined when there is no connection to refresh.
 */
export async function refreshLocked(
  db: Db,
  masterKey: MasterKey,
  keys: readonly MasterKey[],
  userId: string,
  serverId: string,
  refresh: (connection: McpConnection, secrets: ConnectionSecrets) => Promise<Refreshed | 'unchanged'>,
): Promise<Refreshed | undefined> {
  return inTransaction(db, async (client) => {
    // A waiter holds a pooled connection: it gives up (and its call tries again) rather than wait on a slow server without end.
    await client.query(`SET LOCAL lock_timeout = '${REFRESH_LOCK_WAIT_MS}ms'`);
    const { rows } = await client.query<ConnectionRow>('SELECT * FROM mcp_connections WHERE user_id = $1 AND server_id = $2 FOR UPDATE', [
      userId,
      serverId,
    ]);
    if (!rows[0]) return undefined;
    const connection = toConnection(rows[0]);
    const secrets = openConnection(keys, userId, connection);
    if (!secrets || connection.needsSignIn) return { needsSignIn: connection.needsSignIn ?? 'its sign-in holds no tokens' };
    const outcome = await refresh(connection, secrets);
    if (outcome === 'unchanged') return { tokens: secrets.tokens };
    if ('needsSignIn' in outcome) {
      await dropTokens(client, userId, serverId, outcome.needsSignIn);
      return outcome;
    }
    // A server that rotates no refresh token keeps the one it gave before.
    const tokens: OAuthTokens = { ...outcome.tokens, refresh_token: outcome.tokens.refresh_token ?? secrets.tokens.refresh_token };
    const sealed = seal(masterKey, JSON.stringify({ tokens, client: secrets.client }), connectionContext(userId, serverId));
    await client.query(
      `UPDATE mcp_connections SET key_id = $3, nonce = $4, ciphertext = $5, auth_tag = $6, expires_at = $7, scopes = $8, refreshed_at = now()
        WHERE user_id = $1 AND server_id = $2`,
      [
        userId,
        serverId,
        sealed.keyId,
        sealed.nonce,
        sealed.ciphertext,
        sealed.authTag,
        expiryOf(tokens),
        scopesOf(tokens, connection.scopes),
      ],
    );
    return { tokens };
  });
}

/** One user's sign-in to one server, for the code that sends its tokens (lib/mcp/oauth/bearer.ts). */
export function connectionAccess(db: Db, keys: readonly MasterKey[], userId: string, serverId: string): ConnectionAccess {
  return {
    async read() {
      const connection = await getConnection(db, userId, serverId);
      return connection && { connection, secrets: openConnection(keys, userId, connection) };
    },
    refreshLocked: (refresh) => refreshLocked(db, keys[0]!, keys, userId, serverId, refresh),
  };
}

/** Removes a user's connection to a server, answering what it held (to revoke it at the server) when it had tokens. */
export async function deleteConnection(
  db: Db,
  keys: readonly MasterKey[],
  userId: string,
  serverId: string,
): Promise<{ connection: McpConnection; secrets: ConnectionSecrets | undefined } | undefined> {
  const { rows } = await db.query<ConnectionRow>('DELETE FROM mcp_connections WHERE user_id = $1 AND server_id = $2 RETURNING *', [
    userId,
    serverId,
  ]);
  if (!rows[0]) return undefined;
  const connection = toConnection(rows[0]);
  return { connection, secrets: openConnection(keys, userId, connection) };
}

/** What a sign-in under way keeps sealed. */
export interface StateSecrets {
  codeVerifier: string;
  client: OAuthClientInformationMixed;
  /** The callback the authorization request named: the exchange must name the same. */
  redirectUri: string;
}

export interface ConnectState extends OAuthServerPlace {
  userId: string;
  serverId: string;
  serverUrl: string;
  scopes: string[];
  secrets: StateSecrets;
}

interface StateRow extends SignInPlaceRow {
  user_id: string;
  key_id: string;
  nonce: Buffer;
  ciphertext: Buffer;
  auth_tag: Buffer;
}

/** Keeps a sign-in under way, by the hash of its `state`. */
export async function saveConnectState(
  db: Db,
  masterKey: MasterKey,
  state: string,
  input: Omit<ConnectState, 'secrets'> & { secrets: StateSecrets },
): Promise<void> {
  const sealed = seal(masterKey, JSON.stringify(input.secrets), stateContext(input.userId, input.serverId));
  await db.query(
    `INSERT INTO mcp_connect_states (state_hash, user_id, server_id, server_url, authorization_server, metadata, resource, scopes,
                                     key_id, nonce, ciphertext, auth_tag)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
    [
      sha256Hex(state),
      input.userId,
      input.serverId,
      input.serverUrl,
      input.authorizationServer,
      JSON.stringify(input.metadata),
      input.resource,
      input.scopes,
      sealed.keyId,
      sealed.nonce,
      sealed.ciphertext,
      sealed.authTag,
    ],
  );
}

/**
 * Takes a sign-in under way by its `state`, once: the first take marks it used, whatever follows (an
 * error from the authorization server, a failed exchange), so a `state` replayed finds nothing. Only
 * states younger than `maxAgeSeconds` are taken.
 */
export async function takeConnectState(
  db: Db,
  keys: readonly MasterKey[],
  state: string,
  maxAgeSeconds: number,
): Promise<ConnectState | undefined> {
  const { rows } = await db.query<StateRow>(
    `UPDATE mcp_connect_states SET used_at = now()
      WHERE state_hash = $1 AND used_at IS NULL AND created_at > now() - make_interval(secs => $2)
      RETURNING *`,
    [sha256Hex(state), maxAgeSeconds],
  );
  const row = rows[0];
  if (!row) return undefined;
  const secrets = JSON.parse(
    open(
      keys,
      { keyId: row.key_id, nonce: row.nonce, ciphertext: row.ciphertext, authTag: row.auth_tag },
      stateContext(row.user_id, row.server_id),
    ),
  ) as StateSecrets;
  return { userId: row.user_id, ...placeOf(row), secrets };
}

/** Connections whose access token runs out within `withinMs` and may be refreshed, soonest first, with their server's URL. */
export async function connectionsRunningOut(
  db: Db,
  withinMs: number,
  limit: number,
): Promise<Array<{ userId: string; serverId: string; url: string }>> {
  const { rows } = await db.query<{ user_id: string; server_id: string; url: string }>(
    `SELECT c.user_id, c.server_id, s.url FROM mcp_connections c
       JOIN mcp_servers s ON s.user_id = c.user_id AND s.id = c.server_id
      WHERE c.expires_at < now() + make_interval(secs => $1::double precision / 1000)
        AND c.needs_sign_in IS NULL AND c.ciphertext IS NOT NULL AND c.server_url = s.url
      ORDER BY c.expires_at LIMIT $2`,
    [withinMs, limit],
  );
  return rows.map((row) => ({ userId: row.user_id, serverId: row.server_id, url: row.url }));
}

/** Housekeeping: sign-ins under way older than `maxAgeSeconds`, used or not. */
export async function pruneConnectStates(db: Db, maxAgeSeconds: number): Promise<number> {
  const { rowCount } = await db.query('DELETE FROM mcp_connect_states WHERE created_at < now() - make_interval(secs => $1)', [
    maxAgeSeconds,
  ]);
  return rowCount ?? 0;
}

/** Where a registered client was registered, and for which redirect URI: another of either registers again. */
export interface ClientPlace {
  userId: string;
  serverId: string;
  authorizationServer: string;
  redirectUri: string;
}

const clientContext = (place: ClientPlace) => `mcp-oauth-client/${place.userId}/${place.serverId}`;

/** The client registered for this place before, unless its secret has run out. */
export async function registeredClient(
  db: Db,
  keys: readonly MasterKey[],
  place: ClientPlace,
): Promise<OAuthClientInformationMixed | undefined> {
  const { rows } = await db.query<{ key_id: string; nonce: Buffer; ciphertext: Buffer; auth_tag: Buffer }>(
    `SELECT key_id, nonce, ciphertext, auth_tag FROM mcp_oauth_clients
      WHERE user_id = $1 AND server_id = $2 AND authorization_server = $3 AND redirect_uri = $4`,
    [place.userId, place.serverId, place.authorizationServer, place.redirectUri],
  );
  const row = rows[0];
  if (!row) return undefined;
  const client = JSON.parse(
    open(keys, { keyId: row.key_id, nonce: row.nonce, ciphertext: row.ciphertext, authTag: row.auth_tag }, clientContext(place)),
  ) as OAuthClientInformationMixed & { client_secret_expires_at?: number };
  // 0 (or none) is a secret that never runs out (RFC 7591 section 3.2.1).
  const expiresAt = client.client_secret_expires_at;
  return expiresAt && expiresAt * 1000 < Date.now() + 60_000 ? undefined : client;
}

export async function saveRegisteredClient(
  db: Db,
  masterKey: MasterKey,
  place: ClientPlace,
  client: OAuthClientInformationMixed,
): Promise<void> {
  const sealed = seal(masterKey, JSON.stringify(client), clientContext(place));
  await db.query(
    `INSERT INTO mcp_oauth_clients (user_id, server_id, authorization_server, redirect_uri, key_id, nonce, ciphertext, auth_tag)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
     ON CONFLICT (user_id, server_id, authorization_server, redirect_uri) DO UPDATE
       SET key_id = EXCLUDED.key_id, nonce = EXCLUDED.nonce, ciphertext = EXCLUDED.ciphertext, auth_tag = EXCLUDED.auth_tag, created_at = now()`,
    [
      place.userId,
      place.serverId,
      place.authorizationServer,
      place.redirectUri,
      sealed.keyId,
      sealed.nonce,
      sealed.ciphertext,
      sealed.authTag,
    ],
  );
}

/** The authorization server no longer knows the client (`invalid_client`): the next sign-in registers again. */
export async function forgetRegisteredClient(db: Db, place: ClientPlace): Promise<void> {
  await db.query(
    `DELETE FROM mcp_oauth_clients WHERE user_id = $1 AND server_id = $2 AND authorization_server = $3 AND redirect_uri = $4`,
    [place.userId, place.serverId, place.authorizationServer, place.redirectUri],
  );
}
