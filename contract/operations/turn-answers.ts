// How a request that starts a turn (a send, a regenerate) answers: 202 at once (`?async=1`), the SSE
// stream of the turn (`Accept: text/event-stream`), or, waiting, 200 with the reply once the turn
// ends, or with what it waits for once it waits on someone (a person answering an approval).

const MESSAGE_ID = { type: 'string', description: 'The user message the turn answers' } as const;

export const TURN_ENDED_SCHEMA = {
  type: 'object',
  required: ['messageId', 'reply', 'status'],
  properties: {
    messageId: MESSAGE_ID,
    reply: { type: 'string', description: 'Text of the final assistant message' },
    json: { description: "With the agent's `jsonReply`: the structured reply, valid against its schema" },
    replyMessageId: { type: ['string', 'null'] },
    status: { enum: ['completed', 'failed', 'aborted'] },
    error: { type: 'string' },
  },
} as const;

export const WAITING_FOR_APPROVAL_SCHEMA = {
  type: 'object',
  required: ['kind', 'approvalId', 'question', 'options', 'expiresAt'],
  properties: {
    kind: { const: 'approval' },
    approvalId: { type: 'string' },
    question: { type: 'string' },
    options: { type: 'array', items: { type: 'string' } },
    expiresAt: { type: 'string', format: 'date-time' },
  },
} as const;

/** A tool call whose MCP server needs its user to sign in: answered by the sign-in finishing, never by a choice. */
export const WAITING_FOR_CONNECT_SCHEMA = {
  type: 'object',
  required: ['kind', 'approvalId', 'server', 'expiresAt'],
  properties: {
    kind: { const: 'connect' },
    approvalId: { type: 'string', description: 'The question that asks it, sent over the agent’s channels like any approval' },
    server: { type: 'string', description: 'The id of the MCP server to sign in to' },
    url: {
      type: 'string',
      description:
        'Opened in a browser by the user, it starts the sign-in (a fetch alone shows a button and starts nothing). Only for a ' +
        'key with `agents:write` and `approvals:answer`: whoever signs in through it connects their account to this user’s server',
    },
    expiresAt: { type: 'string', format: 'date-time' },
  },
} as const;

/** A custom tool call waiting for the client (a `tool.call` event with `executor: 'client'`). */
export const AWAITED_TOOL_CALL_SCHEMA = {
  type: 'object',
  required: ['messageId', 'toolCallId', 'toolName', 'input', 'idempotencyKey'],
  properties: {
    messageId: { type: 'string', description: 'The assistant message that made the call' },
    toolCallId: { type: 'string' },
    toolName: { type: 'string' },
    input: { description: "The call's input, valid against the tool's parameters" },
    idempotencyKey: {
      type: 'string',
      description:
        'The same for every delivery of this call and different for every other call: a tool with a side effect does it once per key ' +
        '(the `tool.call` event carries it too)',
    },
  },
} as const;

export const WAITING_FOR_TOOL_SCHEMA = {
  type: 'object',
  required: ['kind', 'toolCalls'],
  properties: { kind: { const: 'tool' }, toolCalls: { type: 'array', items: AWAITED_TOOL_CALL_SCHEMA } },
} as const;

/** A turn held by other agents it called (or agents they called), which wait on someone. */
export const WAITING_FOR_AGENTS_SCHEMA = {
  type: 'object',
  required: ['kind', 'sessions'],
  properties: {
    kind: { const: 'agents' },
    sessions: {
      type: 'array',
      items: {
        type: 'object',
        required: ['sessionId', 'agent', 'parentSessionId', 'toolCallId', 'approvals', 'toolCalls'],
        properties: {
          sessionId: { type: 'string', description: 'The session that waits: a child of this one, or further down its chain of calls' },
          agent: { type: 'string' },
          parentSessionId: { type: 'string', description: 'The session whose call opened it (this one, for a child)' },
          toolCallId: { type: 'string', description: 'The call of `parentSessionId` that opened it' },
          approvals: {
            type: 'array',
            items: {
              type: 'object',
              required: ['approvalId', 'question', 'options', 'expiresAt'],
              properties: {
                approvalId: { type: 'string' },
                question: { type: 'string' },
                options: { type: 'array', items: { type: 'string' } },
                expiresAt: { type: 'string', format: 'date-time' },
                server: {
                  type: 'string',
                  description: 'A sign-in asked for: answered by the user signing in to this MCP server of theirs, never by a choice',
                },
              },
            },
          },
          toolCalls: {
            type: 'array',
            items: AWAITED_TOOL_CALL_SCHEMA,
            description: 'Its custom tool calls, answered in the child session',
          },
        },
      },
    },
  },
} as const;

/** Clients should treat a kind they do not know as "waiting on something this client does not handle". */
export const WAITING_FOR_SCHEMA = {
  description:
    'What the turn waits for, by `kind`. `approval`: a question to the user, answered with `POST /approval/<approvalId>/answer` ' +
    '(or a link or channel reply), or expiring at `expiresAt`. `tool`: calls of custom tools the client runs, each answered ' +
    'with `POST /session/<id>/tool-result`. `agents`: sessions of other agents this turn called (or they called) wait on ' +
    'such questions or calls, each answered as its own. `connect`: a tool call whose MCP server needs the user to sign in, ' +
    'answered by any sign-in to that server finishing (its `url`, or POST /mcp/<server>/connect). More kinds may be added; ' +
    'treat an unknown one as waiting.',
  oneOf: [WAITING_FOR_APPROVAL_SCHEMA, WAITING_FOR_TOOL_SCHEMA, WAITING_FOR_AGENTS_SCHEMA, WAITING_FOR_CONNECT_SCHEMA],
} as const;

export const TURN_WAITING_SCHEMA = {
  type: 'object',
  required: ['messageId', 'status', 'waitingFor'],
  description: 'The turn waits on someone; it goes on once they answer (follow it with GET /session/<id>/events)',
  properties: { messageId: MESSAGE_ID, status: { const: 'waiting' }, waitingFor: WAITING_FOR_SCHEMA },
} as const;

/** The 200 answer of a waiting send, told apart by `status`. */
export const TURN_REPLY_SCHEMA = { oneOf: [TURN_ENDED_SCHEMA, TURN_WAITING_SCHEMA] } as const;

export const TURN_ACCEPTED_SCHEMA = {
  type: 'object',
  required: ['messageId'],
  properties: { messageId: MESSAGE_ID },
} as const;

/** The SSE form of a 200 (`Accept: text/event-stream`): `id: <seq>`, `event: <type>`, `data: <event JSON>` frames. */
export const EVENT_STREAM_SCHEMA = {
  type: 'string',
  description: 'Server-sent events: `id: <seq>`, `event: <type>`, `data: <event JSON>`, and `:` comment lines while it waits',
} as const;
