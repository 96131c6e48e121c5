// Custom commands: an agent's `command` map turns a template into a prompt (contract/commands.ts
// resolves it, the same way in every client), sent like a message.
import { defineOperation, type BodyOf, type ResponseOf } from './operation.ts';
import { IDEMPOTENCY_KEY_HEADERS } from './shared.ts';
import { SEND_QUERY_SCHEMA } from './sessions.ts';
import { TURN_ACCEPTED_SCHEMA, TURN_REPLY_SCHEMA } from './turn-answers.ts';

const SESSION_ID = {
  type: 'object',
  required: ['sessionId'],
  properties: {
    sessionId: { type: 'string', description: 'The session the command was sent to (for a subtask: its new child session)' },
    parentSessionId: { type: 'string', description: 'A subtask called from a session: that session, where its reply comes back' },
  },
} as const;

export const COMMAND_BODY_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  properties: {
    args: {
      type: 'array',
      maxItems: 50,
      items: { type: 'string', maxLength: 100_000 },
      description: 'Positional arguments: ${1}, ${2}, ... and $ARGUMENTS',
    },
    flags: {
      type: 'object',
      maxProperties: 50,
      additionalProperties: { anyOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }] },
      description: 'Flag values by name: ${name} is the value of the flag --name',
    },
    sessionId: {
      type: 'string',
      maxLength: 64,
      description:
        "Send into this session (of the command's agent); without it a new session is opened. For a command with `subtask: true` " +
        'it is the calling session: the command runs in a new child session (`parentSessionId`) and its reply comes back here',
    },
  },
} as const;

export const runCommand = defineOperation({
  id: 'runCommand',
  method: 'post',
  path: '/agent/{name}/command/{command}',
  summary: "Run one of the agent's custom commands: its template resolved with the arguments and flags, sent like a message",
  description:
    "The answer is a send's (SSE, `?async=1`, or waiting), with the `sessionId` it went to. The command's `agent` runs it on " +
    'another of your agents, its `model` is used for that turn. A missing or unknown argument or flag is a 400 naming it (`errors[].path` points into the body). ' +
    'A `subtask: true` command runs in a new session whose `parentSessionId` is the `sessionId` sent; when its turn ends (completed, failed ' +
    'or aborted), its reply comes back into the calling session as an assistant message with a part `{type: "subtask", sessionId, messageId, ' +
    "status, command, error?}` beside the reply's text (and `json`), which the calling session's next turn reads. " +
    'With an Idempotency-Key, a retry goes to the session the first request opened.',
  tag: 'agents',
  auth: { kind: 'scope', scope: 'sessions:write' },
  body: { schema: COMMAND_BODY_SCHEMA },
  headers: IDEMPOTENCY_KEY_HEADERS,
  streams: true,
  query: SEND_QUERY_SCHEMA,
  responses: {
    200: {
      description: 'As a send answers, with `sessionId`; or the SSE stream of the turn',
      schema: { allOf: [TURN_REPLY_SCHEMA, SESSION_ID] },
    },
    202: { description: 'Accepted (async form)', schema: { allOf: [TURN_ACCEPTED_SCHEMA, SESSION_ID] } },
    403: { description: "`sessionId` names another user's session" },
    404: { description: "You have no agent of that name, it has no such command, or the command's `agent` is not yours" },
    409: { description: 'ifBusy=reject and a turn is running in the session; or `sessionId` is a session of another agent' },
    410: { description: 'The agent of that session was deleted' },
    422: { description: 'The Idempotency-Key was used for a different request' },
  },
});

export type CommandBody = BodyOf<typeof runCommand>;
export type CommandReply = ResponseOf<typeof runCommand, 200>;
