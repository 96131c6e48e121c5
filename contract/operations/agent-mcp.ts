// Each agent as an MCP server (Streamable HTTP, stateless): the JSON-RPC messages are the MCP
// specification's, so the document describes the endpoint's HTTP side and points at the protocol.
import { defineOperation } from './operation.ts';

const JSON_RPC = {
  description: 'A JSON-RPC 2.0 message, or a batch of them, as the MCP specification (Streamable HTTP transport) defines',
  type: ['object', 'array'],
} as const;

export const MCP_TOOLS_DESCRIPTION =
  'Tools: `send_message {message, sessionId?}` (a turn on a new or given session of the agent; the reply as text and ' +
  '`structuredContent` {status, sessionId, messageId, reply, json?, waitingFor?}; progress notifications while it runs when ' +
  'the request carries a progressToken; `notifications/cancelled` aborts the turn), `get_session {sessionId}`, ' +
  "`list_sessions {limit?, before?}`, and `command_<name>` for each of the bundle's custom commands " +
  '({args?, flags?, sessionId?}, as `POST /agent/<name>/command/<command>` takes them). Tools that start turns need the ' +
  '`sessions:write` scope and are not listed to a key without it. A turn that waits on a person or a client answers at ' +
  'once with `status: "waiting"` and what it waits for, rather than holding the call. Resources: each session of the ' +
  'agent, `session://<id>`, its transcript as JSON.';

export const postAgentMcp = defineOperation({
  id: 'postAgentMcp',
  method: 'post',
  path: '/agent/{name}/mcp',
  summary: "The agent as an MCP server: a client's JSON-RPC messages (Streamable HTTP, without sessions)",
  description:
    'The URL `GET /agent/<name>` gives as `mcpUrl`; add it to an MCP client with an API key as ' +
    '`Authorization: Bearer <key>`. Each POST is answered on its own (no server state between requests), so any API ' +
    'process serves any request. One JSON-RPC message per POST (a batch is refused with -32600); the answer is JSON or, ' +
    'for a call with a progressToken, an SSE stream of JSON-RPC messages (progress at least every 15 s, the answer within ' +
    '10 minutes; a call without one is answered within 50 s, `status: "running"` if its turn goes on). The initialize ' +
    'answer carries an `Mcp-Session-Id` the client sends back, which names its calls for cancellation (by the same key, ' +
    `holding \`sessions:write\`). ${MCP_TOOLS_DESCRIPTION} Errors of the protocol are JSON-RPC errors; a tool that fails ` +
    'answers `isError: true` with the problem in words.',
  tag: 'agents',
  auth: { kind: 'scope', scope: 'read' },
  body: { contentTypes: ['application/json'], schema: JSON_RPC, required: true },
  responses: {
    200: {
      description: 'The JSON-RPC answer, or an SSE stream of JSON-RPC messages ending with it',
      schema: JSON_RPC,
      also: { 'text/event-stream': { description: 'JSON-RPC messages, one per SSE `message` event' } },
    },
    202: { description: 'Notifications and responses taken: no body' },
    400: {
      description:
        'Not JSON, a batch, not JSON-RPC, or text PostgreSQL cannot store: a JSON-RPC error (parse error, invalid request or params)',
      schema: JSON_RPC,
      contentType: 'application/json',
    },
    404: { description: 'You have no agent of that name' },
    406: { description: 'The Accept header does not list both application/json and text/event-stream' },
  },
});

const NOT_HERE = {
  description: 'Not offered: the server keeps no stream or session between requests (answered with `Allow: POST`)',
} as const;

export const getAgentMcp = defineOperation({
  id: 'getAgentMcp',
  method: 'get',
  path: '/agent/{name}/mcp',
  summary: "The MCP transport's standalone stream: not offered (405), as the transport allows",
  tag: 'agents',
  auth: { kind: 'scope', scope: 'read' },
  responses: { 405: NOT_HERE },
});

export const deleteAgentMcp = defineOperation({
  id: 'deleteAgentMcp',
  method: 'delete',
  path: '/agent/{name}/mcp',
  summary: 'Ending an MCP session: nothing to end (405), as the transport allows',
  tag: 'agents',
  auth: { kind: 'scope', scope: 'read' },
  responses: { 405: NOT_HERE },
});
