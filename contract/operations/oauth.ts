// OAuth 2.1 for the agents' MCP endpoints: the service is the authorization server of its own MCP URLs.
// The protocol's endpoints (authorize, token, registration, revocation) answer as their RFCs say (OAuth
// error objects, not problem documents) and are served by the official MCP SDK's handlers; the two
// metadata documents and the consent page's API are the service's own.
import { SCOPES } from '../scopes.ts';
import { defineOperation, type ResponseOf } from './operation.ts';

const TIME = { type: 'string', format: 'date-time' } as const;
const OAUTH_JSON = { description: 'As the RFC defines it', type: 'object' } as const;
const OAUTH_ERROR = {
  description: 'An OAuth error object (`error`, `error_description`), as the RFC defines it',
  schema: { type: 'object', required: ['error'], properties: { error: { type: 'string' }, error_description: { type: 'string' } } },
  contentType: 'application/json',
} as const;
const FORM = { contentTypes: ['application/x-www-form-urlencoded'], schema: { description: 'The form the RFC defines' }, required: true };

export const getAuthorizationServerMetadata = defineOperation({
  id: 'getAuthorizationServerMetadata',
  method: 'get',
  path: '/.well-known/oauth-authorization-server',
  summary: "The authorization server's metadata (RFC 8414): where MCP clients register, authorize and get tokens",
  tag: 'oauth',
  auth: { kind: 'public' },
  responses: { 200: { description: 'The metadata', schema: OAUTH_JSON } },
});

export const getProtectedResourceMetadata = defineOperation({
  id: 'getProtectedResourceMetadata',
  method: 'get',
  path: '/.well-known/oauth-protected-resource/agent/{name}/mcp',
  summary: "An agent's MCP URL as a protected resource (RFC 9728): its authorization server and scopes",
  description:
    "Named in the `WWW-Authenticate` header of the MCP URL's 401 (`resource_metadata`). The same for every name: it says " +
    'nothing of whether an agent of that name exists, which depends on who signs in.',
  tag: 'oauth',
  auth: { kind: 'public' },
  responses: { 200: { description: 'The metadata', schema: OAUTH_JSON } },
});

export const authorizeOAuth = defineOperation({
  id: 'authorizeOAuth',
  method: 'get',
  path: '/oauth/authorize',
  summary: 'The authorization endpoint: code flow with PKCE (S256), redirecting the user to the consent page',
  description:
    "Answers a redirect to the dashboard's consent page (`/app/oauth/consent?request=<id>`), where the signed-in user " +
    "allows or denies it within 10 minutes; then to the client's `redirect_uri` with a `code` (exchanged once, within 60 s) " +
    'or `error=access_denied`. `scope` names `read` and `sessions:write` (without it, both), all a grant may hold; `resource` ' +
    "(RFC 8707, required) an agent's MCP URL here, to which the grant is bound: elsewhere it is no credential. A request this " +
    'service refuses (a response type, PKCE, a scope or a resource it does not take) is answered 400 here, never redirected.',
  tag: 'oauth',
  auth: { kind: 'public' },
  responses: {
    302: {
      description: "To the consent page, or to the client's redirect_uri with an error (`Location`)",
      schema: { type: 'string', description: 'A line naming where it redirects' },
      contentType: 'text/plain',
      also: { 'text/html': { type: 'string', description: 'The same line, for a browser' } },
    },
    400: OAUTH_ERROR,
  },
});

export const exchangeOAuthToken = defineOperation({
  id: 'exchangeOAuthToken',
  method: 'post',
  path: '/oauth/token',
  summary: 'The token endpoint: authorization_code (with its PKCE verifier) and refresh_token grants',
  description:
    'An access token lives OAUTH_ACCESS_TOKEN_TTL_SECONDS (an hour by default); its refresh token OAUTH_REFRESH_TOKEN_TTL_DAYS ' +
    '(90 by default) and rotates: each refresh answers a new one, and the old one stops working. The grant is a key of the ' +
    'user, listed by GET /key and ended by DELETE /key/<id> or POST /oauth/revoke.',
  tag: 'oauth',
  auth: { kind: 'public' },
  body: FORM,
  responses: { 200: { description: 'The tokens', schema: OAUTH_JSON }, 400: OAUTH_ERROR, 401: OAUTH_ERROR },
});

export const registerOAuthClient = defineOperation({
  id: 'registerOAuthClient',
  method: 'post',
  path: '/oauth/register',
  summary: 'Dynamic client registration (RFC 7591)',
  description:
    'Limited per client address (OAUTH_REGISTRATIONS_PER_WINDOW per RATE_LIMIT_WINDOW_SECONDS). A client that gets no ' +
    'grant within a day is forgotten.',
  tag: 'oauth',
  auth: { kind: 'public' },
  body: { schema: { description: 'Client metadata (RFC 7591)', type: 'object' }, required: true },
  responses: { 201: { description: 'The registered client', schema: OAUTH_JSON }, 400: OAUTH_ERROR },
});

export const revokeOAuthToken = defineOperation({
  id: 'revokeOAuthToken',
  method: 'post',
  path: '/oauth/revoke',
  summary: 'Token revocation (RFC 7009): either token of a grant ends the whole grant',
  tag: 'oauth',
  auth: { kind: 'public' },
  body: FORM,
  responses: { 200: { description: 'Revoked, or nothing to revoke', schema: OAUTH_JSON }, 400: OAUTH_ERROR, 401: OAUTH_ERROR },
});

const AUTHORIZATION_VIEW = {
  type: 'object',
  required: ['id', 'client', 'redirectHost', 'scopes', 'expiresAt'],
  properties: {
    id: { type: 'string' },
    client: {
      type: 'object',
      required: ['clientId', 'name'],
      properties: {
        clientId: { type: 'string' },
        name: { type: 'string', description: 'As the client registered it: a claim, not a verified identity' },
        uri: { type: 'string' },
      },
    },
    redirectHost: { type: 'string', description: 'Where the user is sent back: the host the code goes to' },
    scopes: { type: 'array', items: { enum: SCOPES }, description: 'What the client asks for' },
    resource: { type: 'string', description: "The MCP URL's path the grant is bound to, when the client named one" },
    expiresAt: TIME,
  },
} as const;

const UNDECIDED = { description: 'No undecided, unexpired authorization with this id' } as const;

export const getOAuthAuthorization = defineOperation({
  id: 'getOAuthAuthorization',
  method: 'get',
  path: '/oauth/authorization/{id}',
  summary: 'An OAuth authorization waiting for its user: the client, where it goes back, the scopes it asks for',
  tag: 'oauth',
  auth: { kind: 'scope', scope: 'read' },
  responses: { 200: { description: 'The authorization', schema: AUTHORIZATION_VIEW }, 404: UNDECIDED },
});

export const decideOAuthAuthorization = defineOperation({
  id: 'decideOAuthAuthorization',
  method: 'post',
  path: '/oauth/authorization/{id}',
  summary: 'Allow or deny an OAuth authorization, as the signed-in user: the answer is where to send the browser',
  description:
    "Allowed, the client gets a grant of the calling key's user with the scopes asked that the calling key holds, listed by " +
    'GET /key and counted among its keys (KEYS_PER_USER). Once only.',
  tag: 'oauth',
  auth: { kind: 'scope', scope: 'keys:write' },
  body: {
    required: true,
    schema: { type: 'object', additionalProperties: false, required: ['allow'], properties: { allow: { type: 'boolean' } } },
  },
  responses: {
    200: {
      description: "The client's redirect_uri with the code (or `error=access_denied`) and the state",
      schema: { type: 'object', required: ['redirectUrl'], properties: { redirectUrl: { type: 'string' } } },
    },
    404: { description: 'No undecided, unexpired authorization with this id; or (allowing) you have no agent of the MCP URL it names' },
    409: { description: "The client's metadata document no longer lists the redirect URI the authorization asked for" },
  },
});

export type OAuthAuthorizationView = ResponseOf<typeof getOAuthAuthorization, 200>;
export type OAuthDecision = ResponseOf<typeof decideOAuthAuthorization, 200>;
