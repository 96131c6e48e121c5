// Tools: the built-in tool servers an agent may enable (`mcps`), and the results a client posts for
// the calls of its custom tools (custom tools are run by the caller's own code).
import { defineOperation, type BodyOf, type ResponseOf, type Sent } from './operation.ts';
import { TIME } from './shared.ts';

const TOOL_SCHEMA = {
  type: 'object',
  required: ['name', 'description', 'inputSchema'],
  properties: {
    name: { type: 'string' },
    description: { type: 'string' },
    inputSchema: { type: 'object', description: 'A draft-07 JSON Schema of the input' },
  },
} as const;

/** Ids of remote MCP servers: the form of a built-in one's, so a bundle's `mcps` reads the same. */
export const MCP_SERVER_ID_PATTERN = /^[a-z][a-z0-9_-]{0,63}$/;
export const MCP_SERVER_LIMITS = {
  urlChars: 2048,
  headers: 20,
  headerValueChars: 8192,
  descriptionChars: 1000,
  scopes: 50,
  scopeChars: 200,
  clientIdChars: 1000,
} as const;

/** How long a sign-in started with POST /mcp/<id>/connect may be finished (its authorization URL is good for). */
export const MCP_CONNECT_TTL_SECONDS = 15 * 60;

/** `auth` of a remote server, as written to PUT /mcp/<id> and shown back (the secret only by its reference). */
const MCP_AUTH_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['type'],
  description:
    'Sign in with OAuth 2.1 as the MCP authorization spec describes: each user connects once (POST /mcp/<id>/connect) and ' +
    'the service keeps and refreshes their tokens. Without `clientId` the service registers itself at the authorization ' +
    'server (dynamic client registration).',
  properties: {
    type: { const: 'oauth' },
    scopes: {
      type: 'array',
      maxItems: MCP_SERVER_LIMITS.scopes,
      items: { type: 'string', minLength: 1, maxLength: MCP_SERVER_LIMITS.scopeChars, pattern: '^[\\x21\\x23-\\x5B\\x5D-\\x7E]+$' },
      description: "The scopes to ask for; by default what the server's 401 or its metadata names",
    },
    clientId: {
      type: 'string',
      minLength: 1,
      maxLength: MCP_SERVER_LIMITS.clientIdChars,
      description: 'A client you registered at the authorization server yourself (its redirect URI: <service URL>/mcp-oauth/callback)',
    },
    clientSecret: {
      type: 'string',
      pattern: '^\\{\\{secrets\\.[A-Za-z0-9_]{1,100}\\}\\}$',
      description: "That client's secret, as a reference to one of your secrets (`{{secrets.KEY}}`); needs `clientId`",
    },
  },
  dependencies: { clientSecret: ['clientId'] },
} as const;

export const MCP_CONNECTION_STATUSES = ['connected', 'needs-sign-in', 'not-connected'] as const;

const MCP_CONNECTION_SCHEMA = {
  type: ['object', 'null'],
  required: ['status', 'scopes', 'expiresAt', 'connectedAt', 'refreshedAt', 'reason'],
  description: 'Your sign-in to a server with `auth`; null for a server without',
  properties: {
    status: {
      enum: MCP_CONNECTION_STATUSES,
      description: '`needs-sign-in`: a refresh was refused for good, the server refused the tokens, or its URL changed since',
    },
    scopes: { type: 'array', items: { type: 'string' }, description: 'As granted' },
    expiresAt: { ...TIME, type: ['string', 'null'], description: "The access token's end; it is refreshed before then" },
    connectedAt: { ...TIME, type: ['string', 'null'] },
    refreshedAt: { ...TIME, type: ['string', 'null'] },
    reason: { type: ['string', 'null'], description: 'Why a new sign-in is needed' },
  },
} as const;

const BUILTIN_SERVER_SCHEMA = {
  type: 'object',
  required: ['id', 'kind', 'description', 'tools'],
  properties: {
    id: { type: 'string' },
    kind: { const: 'builtin', description: 'Given by the service to every agent that names it' },
    description: { type: 'string' },
    tools: { type: 'array', items: TOOL_SCHEMA },
  },
} as const;

const REMOTE_SERVER_SCHEMA = {
  type: 'object',
  required: ['id', 'kind', 'url', 'headerNames', 'description', 'auth', 'connection', 'createdAt', 'updatedAt'],
  properties: {
    id: { type: 'string', pattern: MCP_SERVER_ID_PATTERN.source },
    kind: { const: 'remote', description: 'A remote MCP server you registered with PUT /mcp/<id>' },
    url: {
      type: 'string',
      description:
        'Whole for a key with `agents:write`; for any other key, its query string, fragment and userinfo are `[redacted]` ' +
        '(a URL often carries its token there)',
    },
    headerNames: {
      type: 'array',
      items: { type: 'string' },
      description: 'The headers sent with every request (their values are never shown)',
    },
    description: { type: ['string', 'null'] },
    auth: { anyOf: [MCP_AUTH_SCHEMA, { type: 'null' }] },
    connection: MCP_CONNECTION_SCHEMA,
    createdAt: TIME,
    updatedAt: TIME,
    tools: {
      type: 'array',
      items: TOOL_SCHEMA,
      description: 'Only from GET /mcp/<id>, which connects and lists them now; a revision offers those listed at its deploy',
    },
  },
} as const;

export const TOOL_SERVER_SCHEMA = { oneOf: [BUILTIN_SERVER_SCHEMA, REMOTE_SERVER_SCHEMA] } as const;

export const listToolServers = defineOperation({
  id: 'listToolServers',
  method: 'get',
  path: '/mcps',
  summary: 'The tool servers a bundle may name in `mcps`: the built-in ones with their tools, then the remote MCP servers you registered',
  description:
    "A remote server is shown as stored, without its tools (GET /mcp/<id> lists them live). Without `agents:write` a server's URL " +
    'has its query string, fragment and userinfo redacted.',
  tag: 'tools',
  auth: { kind: 'scope', scope: 'read' },
  responses: {
    200: {
      description: 'Built-in servers in a stable order, then yours by id; `kind` tells them apart',
      schema: { type: 'array', items: TOOL_SERVER_SCHEMA },
    },
  },
});

export const PUT_MCP_SERVER_BODY_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['url'],
  properties: {
    url: {
      type: 'string',
      minLength: 1,
      maxLength: MCP_SERVER_LIMITS.urlChars,
      description:
        "The server's MCP endpoint (Streamable HTTP; a server that only speaks the older HTTP+SSE transport is reached with that). " +
        'http or https; private addresses are refused unless the operator allows them (OUTBOUND_ALLOW_CIDRS).',
    },
    headers: {
      type: 'object',
      maxProperties: MCP_SERVER_LIMITS.headers,
      propertyNames: { pattern: "^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$" },
      additionalProperties: { type: 'string', maxLength: MCP_SERVER_LIMITS.headerValueChars },
      description:
        'Sent with every request. Values may use {{secrets.KEY}}: filled in only when connecting, and only with a secret whose ' +
        "`hosts` allow the URL's host. Values are stored as written and never shown again: put credentials in secrets.",
    },
    description: { type: 'string', maxLength: MCP_SERVER_LIMITS.descriptionChars },
    auth: MCP_AUTH_SCHEMA,
  },
} as const;

export const putMcpServer = defineOperation({
  id: 'putMcpServer',
  method: 'put',
  path: '/mcp/{id}',
  summary: 'Register or replace a remote MCP server that your bundles can name in `mcps`',
  description:
    'Nothing connects yet: a deploy naming the id connects, lists the tools and freezes them into the revision. ' +
    "A replaced server's URL and headers are used by the next call of every agent naming it; its tools change with the next deploy.",
  tag: 'tools',
  auth: { kind: 'scope', scope: 'agents:write' },
  body: { required: true, schema: PUT_MCP_SERVER_BODY_SCHEMA },
  responses: {
    200: { description: 'Replaced', schema: REMOTE_SERVER_SCHEMA },
    201: { description: 'Registered', schema: REMOTE_SERVER_SCHEMA },
  },
});

export const getMcpServer = defineOperation({
  id: 'getMcpServer',
  method: 'get',
  path: '/mcp/{id}',
  summary: 'One tool server; a remote one is connected to and its tools listed now',
  description:
    'Listing connects to the server as you, with your header secrets, so it needs `agents:write` (for a built-in id too); a key ' +
    'with only `read` gets 403 and reads the built-in servers with their tools, and yours without their tools and with redacted ' +
    'URLs, in GET /mcps. One listing (connecting and every page) ends by MCP_LIST_TIMEOUT_MS, and ends as soon as the caller ' +
    'hangs up. A tool list that quotes a credential the server is sent (a header secret, a credential-looking header value, its ' +
    "URL's query, fragment or password) is refused (502).",
  tag: 'tools',
  auth: { kind: 'scope', scope: 'agents:write' },
  responses: {
    200: { description: 'The server with its tools', schema: TOOL_SERVER_SCHEMA },
    404: { description: 'No built-in server and none of yours has that id' },
    429: {
      description:
        'Your user already has MCP_LISTINGS_PER_USER listings running in this API process (`rate-limited`; deploys naming ' +
        'remote servers count too), or RATE_LIMIT_POINTS is spent; retry after the seconds in Retry-After',
    },
    502: { description: 'The remote server could not be reached or listed in time, or its tool list is refused (`mcp-unreachable`)' },
  },
});

export const deleteMcpServer = defineOperation({
  id: 'deleteMcpServer',
  method: 'delete',
  path: '/mcp/{id}',
  summary: 'Remove a remote MCP server you registered',
  description:
    'Deployed revisions keep offering its tools; their calls fail with a tool error the model reads until the server is registered again.',
  tag: 'tools',
  auth: { kind: 'scope', scope: 'agents:write' },
  responses: { 204: { description: 'Removed' }, 404: { description: 'You registered no server of that id' } },
});

export const connectMcpServer = defineOperation({
  id: 'connectMcpServer',
  method: 'post',
  path: '/mcp/{id}/connect',
  summary: 'Start signing in to a remote MCP server with `auth`: answers the URL to open in a browser',
  description:
    "Finds the server's authorization server (its 401 and RFC 9728 metadata, then RFC 8414 or OpenID discovery; every request " +
    'through the outbound guard), registers the service as a client unless `auth.clientId` names one, and answers the ' +
    'authorization URL (PKCE S256, the `resource` of RFC 8707). Open it as the user who should be signed in; the authorization ' +
    "server sends the browser back to the service's callback, which stores the tokens. Each call starts a new sign-in, good for " +
    `${MCP_CONNECT_TTL_SECONDS / 60} minutes; an earlier connection stays until a new one replaces it.`,
  tag: 'tools',
  auth: { kind: 'scope', scope: 'agents:write' },
  responses: {
    200: {
      description: 'Open `authorizationUrl` in a browser',
      schema: {
        type: 'object',
        required: ['authorizationUrl', 'expiresAt', 'redirectUri'],
        properties: {
          authorizationUrl: { type: 'string' },
          expiresAt: TIME,
          redirectUri: { type: 'string', description: 'Where the authorization server sends the browser back' },
        },
      },
    },
    400: { description: '`auth.clientSecret` names a secret you do not have, or one whose `hosts` do not allow the token endpoint' },
    404: { description: 'You registered no server of that id' },
    409: { description: 'The server has no `auth`: it is reached with its headers (`conflict`)' },
    502: {
      description:
        "The server's OAuth metadata could not be found or used, or its authorization server refused the registration (`mcp-unreachable`)",
    },
  },
});

export const disconnectMcpServer = defineOperation({
  id: 'disconnectMcpServer',
  method: 'delete',
  path: '/mcp/{id}/connection',
  summary: 'Sign out of a remote MCP server: the tokens are revoked at its authorization server (where it offers that) and forgotten',
  tag: 'tools',
  auth: { kind: 'scope', scope: 'agents:write' },
  responses: {
    200: {
      description: 'Forgotten',
      schema: {
        type: 'object',
        required: ['revoked'],
        properties: { revoked: { type: 'boolean', description: 'Whether the authorization server confirmed the revocation (RFC 7009)' } },
      },
    },
    404: { description: 'No sign-in to a server of yours with that id' },
  },
});

const CALLBACK_QUERY = {
  type: 'object',
  properties: {
    code: { type: 'string', maxLength: 4096 },
    state: { type: 'string', maxLength: 512 },
    error: { type: 'string', maxLength: 200 },
    error_description: { type: 'string', maxLength: 2000 },
    iss: { type: 'string', maxLength: 2048 },
  },
} as const;

const CALLBACK_PAGE = { 'text/html': { type: 'string' } } as const;

const CALLBACK_DESCRIPTION =
  'Public: the `state` binds the sign-in to its user and server, and is taken once. A GET that is a person’s browser ' +
  'arriving (a navigation, not a known link-preview fetcher) finishes the sign-in; any other GET is shown a button that ' +
  'finishes it with POST, so a link preview or a scanner records nothing. A `state` used before, too old or never given ' +
  'is 400 and stores nothing; an `error` from the authorization server is shown and stores nothing.';

export const getMcpClientDocument = defineOperation({
  id: 'getMcpClientDocument',
  method: 'get',
  path: '/mcp-oauth/client.json',
  summary: "The service's OAuth client ID metadata document, for authorization servers that take such documents",
  description:
    'Public. Its URL is the client ID the service signs in with where an authorization server says ' +
    '`client_id_metadata_document_supported` and the service is reached over https (PUBLIC_BASE_URL): no registration is needed.',
  tag: 'tools',
  auth: { kind: 'public' },
  responses: {
    200: {
      description: 'The document (a public client: no secret)',
      schema: {
        type: 'object',
        required: ['client_id', 'client_name', 'redirect_uris', 'grant_types', 'response_types', 'token_endpoint_auth_method'],
        properties: {
          client_id: { type: 'string' },
          client_name: { type: 'string' },
          redirect_uris: { type: 'array', items: { type: 'string' } },
          grant_types: { type: 'array', items: { type: 'string' } },
          response_types: { type: 'array', items: { type: 'string' } },
          token_endpoint_auth_method: { type: 'string' },
        },
      },
    },
  },
});

export const finishMcpSignIn = defineOperation({
  id: 'finishMcpSignIn',
  method: 'get',
  path: '/mcp-oauth/callback',
  summary: "Where a remote MCP server's authorization server sends the browser back (the redirect URI)",
  description: CALLBACK_DESCRIPTION,
  tag: 'tools',
  auth: { kind: 'public' },
  query: CALLBACK_QUERY,
  responses: {
    200: { description: 'Connected, or the button that finishes it', also: CALLBACK_PAGE },
    400: {
      description: 'No such sign-in under way (used, expired, or never started), or the authorization server said no',
      also: CALLBACK_PAGE,
    },
    502: { description: 'The authorization server refused the code or could not be reached', also: CALLBACK_PAGE },
  },
});

export const finishMcpSignInByButton = defineOperation({
  id: 'finishMcpSignInByButton',
  method: 'post',
  path: '/mcp-oauth/callback',
  summary: 'The callback page’s button: finishes the sign-in',
  description: CALLBACK_DESCRIPTION,
  tag: 'tools',
  auth: { kind: 'public' },
  body: { contentTypes: ['application/x-www-form-urlencoded', 'application/json'], schema: CALLBACK_QUERY, required: true },
  responses: {
    200: { description: 'Connected', also: CALLBACK_PAGE },
    400: { description: 'No such sign-in under way, or the authorization server said no', also: CALLBACK_PAGE },
    502: { description: 'The authorization server refused the code or could not be reached', also: CALLBACK_PAGE },
  },
});

export type ToolServerView = Sent<typeof TOOL_SERVER_SCHEMA>;
export type McpAuthBody = Sent<typeof MCP_AUTH_SCHEMA>;
export type McpConnectionView = Sent<typeof MCP_CONNECTION_SCHEMA>;
export type RemoteToolServerView = Sent<typeof REMOTE_SERVER_SCHEMA>;
export type PutMcpServerBody = Sent<typeof PUT_MCP_SERVER_BODY_SCHEMA>;

export const TOOL_RESULT_BODY_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['toolCallId'],
  description: 'Exactly one of `output` (any JSON: the result) and `error` (a message the model reads as the failure of the tool)',
  properties: {
    toolCallId: { type: 'string', minLength: 1, maxLength: 200 },
    output: { description: 'The result, any JSON value' },
    error: { type: 'string', minLength: 1, maxLength: 10_000 },
  },
  oneOf: [
    { required: ['output'], properties: { output: {} } },
    { required: ['error'], properties: { error: {} } },
  ],
} as const;

export const submitToolResult = defineOperation({
  id: 'submitToolResult',
  method: 'post',
  path: '/session/{id}/tool-result',
  summary:
    'Answer one call of a custom tool: its result (or error) goes to the model, and the turn goes on once every call of the step is answered',
  description:
    'A `tool.call` event with `executor: "client"` asks the caller to run a custom tool; the session is `waiting` meanwhile, ' +
    'and GET /session/<id> lists the calls in `waitingFor`. Calls are answered independently, in any order; the first ' +
    'answer wins. A call unanswered after CLIENT_TOOL_TIMEOUT_MS gets an error result ("no result from the client"). ' +
    'An answer is taken the moment PostgreSQL has it, workers running or not: the 200 comes at once, the call leaves ' +
    '`waitingFor`, and its `tool.result` event follows once a worker runs the turn. Posting the same answer again is a 200; ' +
    'another answer to an answered call is a 409.',
  tag: 'sessions',
  auth: { kind: 'scope', scope: 'sessions:write' },
  body: { schema: TOOL_RESULT_BODY_SCHEMA, required: true },
  responses: {
    200: {
      description: 'Taken (or this same answer was taken before); its tool.result event follows',
      schema: {
        type: 'object',
        required: ['toolCallId', 'status'],
        properties: { toolCallId: { type: 'string' }, status: { const: 'answered' } },
      },
    },
    403: { description: "Another user's session" },
    404: { description: 'No such session, or no call of a custom tool with that id in it' },
    409: { description: 'That call is answered already, timed out, or no longer awaited (its turn ended)' },
    503: { description: 'PostgreSQL did not answer; Retry-After. Posting it again is safe.' },
  },
});

export type ToolServerList = ResponseOf<typeof listToolServers, 200>;
export type McpConnectStarted = ResponseOf<typeof connectMcpServer, 200>;
export type ToolResultBody = BodyOf<typeof submitToolResult>;
export type ToolResultAnswer = ResponseOf<typeof submitToolResult, 200>;
