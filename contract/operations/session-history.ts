// Changing a conversation's course: fork it into a new session, revert it to before a message, or
// regenerate a reply.
import { defineOperation, type ResponseOf, type Sent } from './operation.ts';
import { ASYNC_QUERY } from './shared.ts';
import { MODEL_OVERRIDE_SCHEMA } from './sessions.ts';
import { TURN_ACCEPTED_SCHEMA, TURN_ENDED_SCHEMA, TURN_WAITING_SCHEMA } from './turn-answers.ts';

const MESSAGE_ID = { type: 'string', minLength: 1, maxLength: 100 } as const;
const REVERTED = { type: 'array', items: { type: 'string' }, description: 'The messages that left the conversation, in order' } as const;
const REGENERATED = { turnId: { type: 'string' }, reverted: REVERTED } as const;

export const REVERT_BODY_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['messageId'],
  properties: { messageId: MESSAGE_ID },
} as const;

export const REGENERATE_BODY_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['assistantMessageId'],
  properties: { assistantMessageId: MESSAGE_ID, model: MODEL_OVERRIDE_SCHEMA },
} as const;

export const forkSession = defineOperation({
  id: 'forkSession',
  method: 'post',
  path: '/session/{id}/fork',
  summary: 'Fork a session: a new session of the same agent revision holding a copy of the conversation so far',
  description:
    'The copy holds the finished (completed or aborted) messages that were not reverted, with new ids; a turn still running ' +
    "contributes only what it finished. The fork's events start with `session.created {forkedFrom}` followed by one " +
    "`message.created` per copy. The fork may use the origin's uploaded media (the bytes are shared, not copied).",
  tag: 'sessions',
  auth: { kind: 'scope', scope: 'sessions:write' },
  responses: {
    201: {
      description: 'The new session',
      schema: { type: 'object', required: ['id', 'forkedFrom'], properties: { id: { type: 'string' }, forkedFrom: { type: 'string' } } },
    },
    404: { description: 'No such session' },
    410: { description: 'The agent of this session was deleted' },
  },
});

export const revertSession = defineOperation({
  id: 'revertSession',
  method: 'post',
  path: '/session/{id}/revert',
  summary: 'Revert: the message and every message after it leave the conversation',
  description:
    'The model never sees them again and `GET /session/<id>` no longer lists them; the event `messages.reverted {messageIds}` ' +
    'tells stream readers what to remove. Taken in PostgreSQL at once, in order with sends, whether or not a worker runs. ' +
    'Refused with 409 while a turn runs or is queued.',
  tag: 'sessions',
  auth: { kind: 'scope', scope: 'sessions:write' },
  body: { required: true, schema: REVERT_BODY_SCHEMA },
  responses: {
    200: { description: 'Reverted', schema: { type: 'object', required: ['reverted'], properties: { reverted: REVERTED } } },
    404: { description: 'No such session, or no such message in its conversation' },
    409: { description: 'A turn is running or queued' },
    410: { description: 'The agent of this session was deleted' },
  },
});

export const regenerateReply = defineOperation({
  id: 'regenerateReply',
  method: 'post',
  path: '/session/{id}/regenerate',
  summary: 'Regenerate a reply: it and everything after it leave the conversation, and its turn runs again',
  description:
    'The new turn answers the same user message with a turn id of its own (`turnId`, also in `turn.started`, which names the ' +
    '`userMessageId`); its messages belong to that user message. By default it uses the model that made the old reply. ' +
    'Answers like a send: SSE (`messages.reverted`, then the new turn), `?async=1`, or waiting for the reply (or for what the ' +
    'turn waits on, `status: waiting`). Taken in PostgreSQL at once, as a send is (the revert and the new turn together), ' +
    'whether or not a worker runs; the turn runs once one does. 409 while a turn runs.',
  tag: 'sessions',
  auth: { kind: 'scope', scope: 'sessions:write' },
  body: { required: true, schema: REGENERATE_BODY_SCHEMA },
  streams: true,
  query: {
    type: 'object',
    additionalProperties: false,
    properties: { async: { ...ASYNC_QUERY, description: '1: answer 202 at once' } },
  },
  responses: {
    200: {
      description: 'The new turn ended, or waits on someone (waiting form; by `status`, as for a send); or the SSE stream',
      schema: {
        oneOf: [
          {
            ...TURN_ENDED_SCHEMA,
            required: [...TURN_ENDED_SCHEMA.required, 'turnId', 'reverted'],
            properties: { ...TURN_ENDED_SCHEMA.properties, ...REGENERATED },
          },
          {
            ...TURN_WAITING_SCHEMA,
            required: [...TURN_WAITING_SCHEMA.required, 'turnId', 'reverted'],
            properties: { ...TURN_WAITING_SCHEMA.properties, ...REGENERATED },
          },
        ],
      },
    },
    202: {
      description: 'Accepted (async form, or the wait limit passed)',
      schema: {
        ...TURN_ACCEPTED_SCHEMA,
        required: ['messageId', 'turnId', 'reverted'],
        properties: { ...TURN_ACCEPTED_SCHEMA.properties, ...REGENERATED },
      },
    },
    400: { description: "The message is not an assistant message (or is a subtask's reply), or the request is not valid" },
    404: { description: 'No such session, or no such message in its conversation' },
    409: { description: 'A turn is running or queued' },
    410: { description: 'The agent of this session was deleted' },
    429: {
      description:
        '`queue-full`: QUEUED_SENDS_PER_USER sends of this user wait for their turns already (nothing is reverted); or ' +
        'rate limited (`rate-limited`: RATE_LIMIT_POINTS per user), or (`stream-limit`, for an answer held open) the user ' +
        'already holds OPEN_STREAMS_PER_USER open streams and waiting requests; retry after the number of seconds in Retry-After',
    },
  },
});

export type RevertBody = Sent<typeof REVERT_BODY_SCHEMA>;
export type RegenerateBody = Sent<typeof REGENERATE_BODY_SCHEMA>;
export type Forked = ResponseOf<typeof forkSession, 201>;
export type Reverted = ResponseOf<typeof revertSession, 200>;
export type Regenerated = ResponseOf<typeof regenerateReply, 200>;
export type RegenerateQuery = Sent<typeof regenerateReply.query>;
export type RegenerateAccepted = ResponseOf<typeof regenerateReply, 202>;

const TOKENS = { type: 'integer', minimum: 0 } as const;

export const compactSession = defineOperation({
  id: 'compactSession',
  method: 'post',
  path: '/session/{id}/compact',
  summary: 'Compact the conversation now: its older part is summarised, and the model is sent the summary from then on',
  description:
    "What the service does by itself when a conversation nears its model's context window (COMPACTION_THRESHOLD_PERCENT) or " +
    'the provider refuses it as too long (docs/models.md, "Long conversations"). The older messages are summarised by a model call ' +
    "(the agent's model, or COMPACTION_MODELS), stored as a message of role `summary` and announced by the event " +
    '`session.compacted {throughMessageId, summaryMessageId, tokensBefore, tokensAfter, reason}`; the most recent messages ' +
    '(COMPACTION_KEEP_PERCENT of the window) are kept whole. Nothing stored is changed: `GET /session/<id>`, the events, ' +
    'fork and revert still see every message, and a revert to before the summary undoes the compaction. The call is ' +
    'billed like a reply. Waits for the summary (up to 5 minutes); `compacted: false` when the conversation is too short ' +
    'to summarise any of it. Refused with 409 while a turn runs or is queued, and when a revert made while it ran took out ' +
    'messages the summary read (nothing is stored; its calls stay billed).',
  tag: 'sessions',
  auth: { kind: 'scope', scope: 'sessions:write' },
  responses: {
    200: {
      description: 'Compacted, or nothing to compact',
      schema: {
        type: 'object',
        required: ['compacted', 'tokensBefore', 'tokensAfter'],
        properties: {
          compacted: { type: 'boolean' },
          summaryMessageId: { type: 'string', description: 'The `summary` message' },
          throughMessageId: { type: 'string', description: 'The last message the summary stands for' },
          tokensBefore: { ...TOKENS, description: 'What the model would be sent before, estimated' },
          tokensAfter: { ...TOKENS, description: 'What the model is sent now, estimated' },
          usage: {
            type: 'object',
            description: 'What the summarising call took',
            properties: { inputTokens: TOKENS, outputTokens: TOKENS, cacheReadTokens: TOKENS, cacheWriteTokens: TOKENS },
          },
          costUsd: { type: ['number', 'null'] },
        },
      },
    },
    403: { description: 'A monthly spend budget is spent (`budget-spent`)' },
    404: { description: 'No such session' },
    409: { description: 'A turn is running or queued' },
    410: { description: 'The agent of this session was deleted' },
    502: { description: 'The summarising model call failed (`model-failed`): refused, or out of attempts' },
    503: { description: 'The session did not confirm the compaction in time (are the workers running?); it may still complete' },
  },
});

export type Compacted = ResponseOf<typeof compactSession, 200>;
