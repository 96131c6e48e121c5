// Tools: the built-in tool servers an agent may enable (`mcps`), and the results a client posts for
// the calls of its custom tools (custom tools are run by the caller's own code).
import { defineOperation, type BodyOf, type ResponseOf } from './operation.ts';

const TOOL_SCHEMA = {
  type: 'object',
  required: ['name', 'description', 'inputSchema'],
  properties: {
    name: { type: 'string' },
    description: { type: 'string' },
    inputSchema: { type: 'object', description: 'A draft-07 JSON Schema of the input' },
  },
} as const;

export const listToolServers = defineOperation({
  id: 'listToolServers',
  method: 'get',
  path: '/mcps',
  summary: 'The built-in tool servers a bundle may enable in `mcps`, with their tools',
  tag: 'tools',
  auth: { kind: 'scope', scope: 'read' },
  responses: {
    200: {
      description: 'Every server, in a stable order',
      schema: {
        type: 'array',
        items: {
          type: 'object',
          required: ['id', 'description', 'tools'],
          properties: { id: { type: 'string' }, description: { type: 'string' }, tools: { type: 'array', items: TOOL_SCHEMA } },
        },
      },
    },
  },
});

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
    'answer wins. A call unanswered after CLIENT_TOOL_TIMEOUT_MS gets an error result ("no result from the client").',
  tag: 'sessions',
  auth: { kind: 'scope', scope: 'sessions:write' },
  body: { schema: TOOL_RESULT_BODY_SCHEMA, required: true },
  responses: {
    200: {
      description: 'Recorded; its tool.result event follows',
      schema: {
        type: 'object',
        required: ['toolCallId', 'status'],
        properties: { toolCallId: { type: 'string' }, status: { const: 'answered' } },
      },
    },
    403: { description: "Another user's session" },
    404: { description: 'No such session, or no call of a custom tool with that id in it' },
    409: { description: 'That call is answered already, timed out, or no longer awaited (its turn ended)' },
    503: { description: 'No worker confirmed the result within TEMPORAL_CALL_TIMEOUT_MS; Retry-After. Posting it again is safe.' },
  },
});

export type ToolServerList = ResponseOf<typeof listToolServers, 200>;
export type ToolResultBody = BodyOf<typeof submitToolResult>;
export type ToolResultAnswer = ResponseOf<typeof submitToolResult, 200>;
