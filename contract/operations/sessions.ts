// Sessions: create, list, read, send (streamed, async or waiting) and abort.
import { IF_BUSY } from '../if-busy.ts';
import { PROVIDER_IDS } from '../bundle-constants.ts';
import { defineOperation, type ResponseOf, type Sent } from './operation.ts';
import { ASYNC_QUERY, CHILDREN_QUERY, IDEMPOTENCY_KEY_HEADERS, TIME } from './shared.ts';
import {
  TURN_ACCEPTED_SCHEMA,
  TURN_REPLY_SCHEMA,
  WAITING_FOR_AGENTS_SCHEMA,
  WAITING_FOR_APPROVAL_SCHEMA,
  WAITING_FOR_CONNECT_SCHEMA,
  WAITING_FOR_TOOL_SCHEMA,
} from './turn-answers.ts';

export const MAX_TEXT_PART_CHARS = 200_000;

const SESSION_FIELDS = {
  id: { type: 'string' },
  agentId: { type: 'string' },
  revision: { type: 'integer', description: 'The agent revision this session is pinned to' },
  status: { enum: ['idle', 'running', 'waiting'] },
  usage: {
    type: 'object',
    properties: {
      inputTokens: { type: 'integer', description: "All input, what the provider's prompt cache served included" },
      outputTokens: { type: 'integer' },
      cacheReadTokens: { type: 'integer', description: "Of the input, read from the provider's prompt cache" },
      cacheWriteTokens: { type: 'integer', description: "Of the input, written to the provider's prompt cache" },
      costUsd: { type: 'number' },
    },
  },
  lastSeq: { type: 'integer', description: 'seq of the newest event' },
  forkedFrom: { type: ['string', 'null'] },
  parentSessionId: {
    type: ['string', 'null'],
    description:
      "A subtask's session: the session its custom command was called from, where its reply goes back; a child session another agent's call opened: the calling session",
  },
  parentToolCallId: {
    type: ['string', 'null'],
    description:
      'A child session another agent\'s tool call opened (docs/tools.md, "Calling other agents"): that call, in `parentSessionId`',
  },
  callDepth: {
    type: 'integer',
    description: 'How deep in a chain of agents calling agents: 0 for a session a person, trigger or API opened',
  },
  createdAt: TIME,
  updatedAt: TIME,
} as const;

const SESSION_REQUIRED = ['id', 'agentId', 'revision', 'status', 'usage', 'lastSeq', 'createdAt', 'updatedAt'] as const;

export const SESSION_SCHEMA = { type: 'object', required: SESSION_REQUIRED, properties: SESSION_FIELDS } as const;

export const MODEL_OVERRIDE_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['modelId'],
  description:
    'Use another model for this turn only: one the operator lets sends choose (SEND_MODELS; unset, any), else 400. While a monthly budget applies, a model with no known price is refused when the turn runs (turn.failed)',
  properties: { providerId: { enum: PROVIDER_IDS }, modelId: { type: 'string', minLength: 1, maxLength: 200 } },
} as const;

export const TEXT_PART_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['type', 'text'],
  properties: { type: { const: 'text' }, text: { type: 'string', minLength: 1, maxLength: MAX_TEXT_PART_CHARS } },
} as const;

export const FILE_PART_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['type', 'url'],
  description: 'A file uploaded to this session (POST /session/<id>/upload): images, text or PDF',
  properties: {
    type: { const: 'file' },
    url: { type: 'string', pattern: '^media/', maxLength: 400 },
    mediaType: { type: 'string', maxLength: 200 },
    filename: { type: 'string', maxLength: 255 },
  },
} as const;

/** Told apart by `type` (the discriminator also makes the server's errors name the one part schema that applies). */
export const PART_SCHEMA = {
  type: 'object',
  discriminator: { propertyName: 'type' },
  oneOf: [TEXT_PART_SCHEMA, FILE_PART_SCHEMA],
} as const;

export const SEND_BODY_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['parts'],
  properties: {
    parts: { type: 'array', minItems: 1, maxItems: 50, items: PART_SCHEMA },
    model: MODEL_OVERRIDE_SCHEMA,
  },
} as const;

export const SEND_QUERY_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  properties: {
    async: {
      ...ASYNC_QUERY,
      description:
        '1: answer 202 {messageId} at once, whether or not a worker is running (the message is recorded in PostgreSQL and ' +
        'its turn runs when a worker takes it; resending with the same Idempotency-Key never runs it twice)',
    },
    ifBusy: {
      enum: IF_BUSY,
      default: 'queue',
      description:
        'While a turn runs: `queue` (the default) runs this message as the next turn; `reject` answers 409; `interrupt` aborts ' +
        'the running turn first; `steer` joins the running turn: its next model step reads the message (with no turn ' +
        'running, it is an ordinary send). A steering send is answered with the running turn (its stream, or its reply).',
    },
    children: CHILDREN_QUERY,
  },
} as const;

export const createSession = defineOperation({
  id: 'createSession',
  method: 'post',
  path: '/agent/{name}/session',
  summary: 'Start a session with an agent (pinned to a revision for its whole life)',
  description:
    'The session starts on the live revision, or on a revision with a traffic share (POST /agent/{name}/traffic) in that ' +
    'share of sessions; `revision` pins it to any revision instead, a staged one included.',
  tag: 'sessions',
  auth: { kind: 'scope', scope: 'sessions:write' },
  body: {
    schema: {
      type: 'object',
      additionalProperties: false,
      properties: { revision: { type: 'integer', minimum: 1, maximum: 999_999_999, description: 'Start on this revision' } },
    },
  },
  responses: {
    201: {
      description: 'The new session',
      schema: { type: 'object', required: ['id', 'revision'], properties: { id: { type: 'string' }, revision: { type: 'integer' } } },
    },
    404: { description: 'You have no agent of that name, or it has no such revision' },
  },
});

export const listSessions = defineOperation({
  id: 'listSessions',
  method: 'get',
  path: '/agent/{name}/sessions',
  summary: "An agent's sessions, newest first; pass `next` as `before` for the following page",
  tag: 'sessions',
  auth: { kind: 'scope', scope: 'read' },
  query: {
    type: 'object',
    additionalProperties: false,
    properties: {
      limit: { type: 'integer', minimum: 1, maximum: 200, default: 50 },
      before: { type: 'string', maxLength: 64, description: 'The id of the last session of the previous page' },
    },
  },
  responses: {
    200: {
      description: 'Sessions, and the cursor of the next page (null at the end)',
      schema: {
        type: 'object',
        required: ['sessions', 'next'],
        properties: { sessions: { type: 'array', items: SESSION_SCHEMA }, next: { type: ['string', 'null'] } },
      },
    },
    404: { description: 'You have no agent of that name' },
  },
});

export const getSession = defineOperation({
  id: 'getSession',
  method: 'get',
  path: '/session/{id}',
  summary: 'A session with its messages, status and usage totals',
  tag: 'sessions',
  auth: { kind: 'scope', scope: 'read' },
  responses: {
    200: {
      description: 'The session',
      schema: {
        type: 'object',
        required: [...SESSION_REQUIRED, 'messages'],
        properties: {
          ...SESSION_FIELDS,
          waitingFor: {
            description:
              'While `status` is `waiting` on calls of custom tools: those calls (answer each with POST /session/<id>/tool-result). ' +
              "While a turn runs and other agents it called wait on someone (`kind: 'agents'`): each such child session, with its " +
              'open questions (answer each with POST /approval/<approvalId>/answer) and its awaited custom tool calls. While the ' +
              "turn itself waits on a question (`kind: 'approval'`) or on a sign-in to an MCP server (`kind: 'connect'`, answered by " +
              'signing in: the link sent over the channels, or POST /mcp/<server>/connect): that question',
            oneOf: [WAITING_FOR_TOOL_SCHEMA, WAITING_FOR_AGENTS_SCHEMA, WAITING_FOR_APPROVAL_SCHEMA, WAITING_FOR_CONNECT_SCHEMA],
          },
          childSessions: {
            type: 'array',
            maxItems: 100,
            description:
              "Sessions this one opened (other agents' calls, subtasks), oldest first, at most 100; each names the call that opened it",
            items: {
              type: 'object',
              required: ['id', 'agentId', 'agent', 'status', 'parentToolCallId', 'createdAt'],
              properties: {
                id: { type: 'string' },
                agentId: { type: 'string' },
                agent: { type: 'string', description: "The child's agent's name" },
                status: { enum: ['idle', 'running', 'waiting'] },
                parentToolCallId: { type: ['string', 'null'], description: "The agent call that opened it (null for a subtask's session)" },
                createdAt: TIME,
              },
            },
          },
          workflowsUrl: {
            type: 'string',
            description: "The session's workflows (its session and turn workflows) in the Temporal Web UI, when TEMPORAL_UI_URL is set",
          },
          messages: {
            type: 'array',
            items: {
              type: 'object',
              required: ['id', 'role', 'parts', 'status', 'createdAt'],
              properties: {
                id: { type: 'string' },
                role: {
                  enum: ['user', 'assistant', 'tool', 'summary'],
                  description:
                    "`summary`: a compaction's summary of the conversation before it (a `compaction` part names the last message it stands for)",
                },
                parts: { type: 'array', items: { type: 'object', required: ['type'], properties: { type: { type: 'string' } } } },
                status: { enum: ['streaming', 'complete', 'aborted', 'failed'] },
                turnId: { type: ['string', 'null'] },
                usage: {
                  type: ['object', 'null'],
                  description: "An assistant (or summary) message's tokens, as its provider reported them",
                  properties: {
                    inputTokens: { type: 'integer', description: 'All input, what the prompt cache served included' },
                    outputTokens: { type: 'integer' },
                    cacheReadTokens: {
                      type: 'integer',
                      description: "Of the input, read from the provider's prompt cache (when it reported any)",
                    },
                    cacheWriteTokens: {
                      type: 'integer',
                      description: "Of the input, written to the provider's prompt cache (when it reported any)",
                    },
                  },
                },
                costUsd: {
                  type: ['number', 'null'],
                  description: "The provider's reported cost, else the price table's estimate, else null",
                },
                createdAt: TIME,
              },
            },
          },
        },
      },
    },
    403: { description: "Another user's session" },
    404: { description: 'No such session' },
  },
});

export const sendMessage = defineOperation({
  id: 'sendMessage',
  method: 'post',
  path: '/session/{id}',
  summary: 'Send a message: streamed (Accept: text/event-stream), async (?async=1) or waiting for the reply',
  description:
    'A send is taken at once, in PostgreSQL, whatever the workers are doing: the message is in the session from then on, ' +
    'and its turn runs when a worker takes it. A send while a turn runs is queued and runs after it, in order; ' +
    '`ifBusy=reject` answers 409 instead, `ifBusy=interrupt` aborts the running turn first. With `Accept: text/event-stream` the answer is the SSE stream of this turn, ending after ' +
    'its terminal event (`turn.completed`, `turn.failed` or `turn.aborted`), questions to the user (`approval.requested`, ' +
    '`.answered`, `.expired`) and the resumed turn included, with a comment line while it waits. Waiting (neither SSE nor ' +
    '`async`), it answers 200 when the turn ends, or at once when the turn starts waiting on someone: `status: waiting` ' +
    'with `waitingFor`; the turn goes on once answered.',
  tag: 'sessions',
  auth: { kind: 'scope', scope: 'sessions:write' },
  body: { required: true, schema: SEND_BODY_SCHEMA },
  headers: IDEMPOTENCY_KEY_HEADERS,
  streams: true,
  query: SEND_QUERY_SCHEMA,
  responses: {
    200: {
      description: 'The turn ended, or waits on someone (waiting form; by `status`); or the SSE stream of the turn',
      schema: TURN_REPLY_SCHEMA,
    },
    202: { description: 'Accepted (async form, or the wait limit passed)', schema: TURN_ACCEPTED_SCHEMA },
    403: { description: "Another user's session" },
    404: { description: 'No such session' },
    409: {
      description:
        'ifBusy=reject and a turn is running; answered again to every retry with the same Idempotency-Key (within 24 h), ' +
        'even once the session is free',
    },
    410: { description: 'The agent of this session was deleted' },
    422: { description: 'The Idempotency-Key was used for a different request' },
    429: {
      description:
        '`queue-full`: QUEUED_SENDS_PER_USER sends of this user wait for their turns already (nothing is recorded; ' +
        'Retry-After says when to try again); or a rate or stream limit',
    },
    503: {
      description:
        'The database did not answer in time; Retry-After says when to try again. Retry with the same Idempotency-Key to ' +
        'be safe (the send is then taken once); without one, check the session before sending again',
    },
  },
});

export const abortSession = defineOperation({
  id: 'abortSession',
  method: 'post',
  path: '/session/{id}/abort',
  summary: 'Abort the running turn; it ends with turn.aborted and keeps its partial text',
  description:
    'Aborts the running turn, or, when none has started, the turn of the first waiting send. Taken with no worker ' +
    'running: PostgreSQL says which turn it is, and the abort reaches the session workflow as a signal the engine ' +
    'takes at once; the turn ends `turn.aborted` once a worker runs it (one not started yet ends without a model call). ' +
    'A turn that ends meanwhile ends as it would have. Sends queued behind it run.',
  tag: 'sessions',
  auth: { kind: 'scope', scope: 'sessions:write' },
  responses: {
    200: {
      description: 'Whether there was a turn to abort',
      schema: { type: 'object', required: ['aborted'], properties: { aborted: { type: 'boolean' } } },
    },
    404: { description: 'No such session' },
    503: {
      description:
        'The workflow engine did not take the abort within TEMPORAL_CALL_TIMEOUT_MS (or, for a turn PostgreSQL does not show yet, no worker confirmed it); Retry-After. Asking again is safe',
    },
  },
});

export type SessionView = Sent<typeof SESSION_SCHEMA>;
export type SendBody = Sent<typeof SEND_BODY_SCHEMA>;
export type SendQuery = Sent<typeof SEND_QUERY_SCHEMA>;
export type ModelOverrideBody = Sent<typeof MODEL_OVERRIDE_SCHEMA>;
export type TurnReply = ResponseOf<typeof sendMessage, 200>;
export type TurnAccepted = ResponseOf<typeof sendMessage, 202>;
export type CreatedSession = ResponseOf<typeof createSession, 201>;
export type SessionPage = ResponseOf<typeof listSessions, 200>;
export type SessionWithMessages = ResponseOf<typeof getSession, 200>;
