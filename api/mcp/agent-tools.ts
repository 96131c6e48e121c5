// The tools an agent's MCP server lists (api/mcp/agent-server.ts): a message to the agent, reading its
// sessions, and one tool per custom command of its bundle, whose arguments come from the command's
// template. A key that may not start turns (no `sessions:write`) is listed only the tools that read.
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { commandPlaceholders } from '../../contract/commands.ts';
import { IF_BUSY } from '../../contract/if-busy.ts';
import { MAX_TEXT_PART_CHARS } from '../../contract/operations/sessions.ts';
import type { Scope } from '../../contract/scopes.ts';
import type { Bundle } from '../../lib/bundle/index.ts';

export const SEND_MESSAGE = 'send_message';
export const GET_SESSION = 'get_session';
export const LIST_SESSIONS = 'list_sessions';
/** A command `review` is the tool `command_review`: command names are a-z, 0-9, '_' and '-', valid in tool names. */
export const COMMAND_TOOL_PREFIX = 'command_';

/** The scope a tool that starts turns needs, as the API's sends do. */
export const SEND_SCOPE: Scope = 'sessions:write';

/** How many messages get_session gives at most: the newest. */
export const MAX_SESSION_MESSAGES = 100;

const SESSION_ID = { type: 'string', minLength: 1, maxLength: 64 } as const;

const IF_BUSY_PROPERTY = {
  enum: [...IF_BUSY],
  description:
    'When a turn already runs in the session: queue (default) runs this one after it, reject refuses, interrupt aborts ' +
    'the running turn first, steer adds the message to the running turn',
};

/** What a tool that runs a turn answers in `structuredContent`. */
export const TURN_OUTPUT_SCHEMA: NonNullable<Tool['outputSchema']> = {
  type: 'object',
  required: ['status', 'sessionId', 'messageId'],
  properties: {
    status: {
      enum: ['completed', 'failed', 'aborted', 'waiting', 'running'],
      description: '`waiting`: the turn waits on a person or a client (see `waitingFor`); `running`: it outlived this call',
    },
    sessionId: { type: 'string', description: 'The session the turn ran in: pass it to continue the conversation' },
    messageId: { type: 'string', description: 'The message sent' },
    replyMessageId: { type: ['string', 'null'] },
    reply: { type: 'string', description: "The text of the turn's last assistant message" },
    json: { description: 'The structured reply, for an agent with `jsonReply`' },
    error: { type: 'string' },
    waitingFor: { type: 'object', description: 'What the turn waits for, as a waiting send answers it' },
  },
};

const SEND_MESSAGE_TOOL = (agent: string): Tool => ({
  name: SEND_MESSAGE,
  title: `Message ${agent}`,
  description:
    `Sends a message to the agent "${agent}" and answers with its reply. Without sessionId a new conversation (session) ` +
    'starts; pass the sessionId of an answer to continue that one. A turn that needs a person (an approval) or a client ' +
    'answers at once with status "waiting" and says how it is answered.',
  inputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['message'],
    properties: {
      message: { type: 'string', minLength: 1, maxLength: MAX_TEXT_PART_CHARS, description: 'What to say to the agent' },
      sessionId: { ...SESSION_ID, description: 'A session of this agent to continue' },
      ifBusy: IF_BUSY_PROPERTY,
    },
  },
  outputSchema: TURN_OUTPUT_SCHEMA,
  annotations: { title: `Message ${agent}`, readOnlyHint: false, openWorldHint: true },
});

const GET_SESSION_TOOL = (agent: string): Tool => ({
  name: GET_SESSION,
  title: 'Read a session',
  description:
    `A session of the agent "${agent}": its status, what it waits for, and its newest messages. Read a turn that ` +
    'answered "waiting" or "running" this way once it has gone on.',
  inputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['sessionId'],
    properties: {
      sessionId: SESSION_ID,
      limit: { type: 'integer', minimum: 1, maximum: MAX_SESSION_MESSAGES, description: 'How many of the newest messages (default 20)' },
    },
  },
  annotations: { title: 'Read a session', readOnlyHint: true, openWorldHint: false },
});

const LIST_SESSIONS_TOOL = (agent: string): Tool => ({
  name: LIST_SESSIONS,
  title: 'List sessions',
  description: `The sessions of the agent "${agent}", newest first, a page at a time.`,
  inputSchema: {
    type: 'object',
    additionalProperties: false,
    properties: {
      limit: { type: 'integer', minimum: 1, maximum: 100, description: 'Sessions per page (default 20)' },
      before: { ...SESSION_ID, description: 'The `next` of the previous page' },
    },
  },
  annotations: { title: 'List sessions', readOnlyHint: true, openWorldHint: false },
});

/** A command's tool: its positional arguments and flags as the template uses them. */
function commandTool(agent: string, name: string, command: NonNullable<Bundle['command']>[string]): Tool {
  const { positionals, flags, allArguments } = commandPlaceholders(command.template);
  const properties: Record<string, object> = {};
  const required: string[] = [];
  if (positionals > 0 || allArguments) {
    properties.args = {
      type: 'array',
      items: { type: 'string', maxLength: 100_000 },
      minItems: positionals,
      maxItems: allArguments ? 50 : positionals,
      description: allArguments
        ? 'The arguments ($ARGUMENTS: all of them, joined by spaces' +
          (positionals ? `; the first ${positionals} also as \${1}...` : '') +
          ')'
        : `The ${positionals} positional argument${positionals === 1 ? '' : 's'}: \${1}` +
          (positionals > 1 ? ` to \${${positionals}}` : ''),
    };
    if (positionals > 0) required.push('args');
  }
  if (flags.length > 0) {
    properties.flags = {
      type: 'object',
      additionalProperties: false,
      required: flags,
      properties: Object.fromEntries(flags.map((flag) => [flag, { anyOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }] }])),
      description: `The flags: ${flags.map((flag) => `--${flag}`).join(', ')}`,
    };
    required.push('flags');
  }
  properties.sessionId = {
    ...SESSION_ID,
    description: command.subtask
      ? 'The session it is called from: the command runs in a new child session, and its reply comes back there'
      : 'A session to run it in; without it a new session is opened',
  };
  const runsOn = command.agent && command.agent !== agent ? ` (it runs on the agent "${command.agent}")` : '';
  const template = command.template.length > 300 ? `${command.template.slice(0, 300)}…` : command.template;
  return {
    name: `${COMMAND_TOOL_PREFIX}${name}`,
    title: `/${name}`,
    description: `Runs the custom command "${name}" of the agent "${agent}"${runsOn}. Its prompt: ${template}`,
    inputSchema: { type: 'object', additionalProperties: false, properties, ...(required.length ? { required } : {}) },
    outputSchema: TURN_OUTPUT_SCHEMA,
    annotations: { title: `/${name}`, readOnlyHint: false, openWorldHint: true },
  };
}

/** The tools every agent has, listed to a key with `scopes`: they need nothing of the bundle. */
export function fixedTools(agent: string, scopes: readonly Scope[]): Tool[] {
  const reads = [GET_SESSION_TOOL(agent), LIST_SESSIONS_TOOL(agent)];
  return scopes.includes(SEND_SCOPE) ? [SEND_MESSAGE_TOOL(agent), ...reads] : reads;
}

/** The tools of the bundle's custom commands (they start turns: none for a key that may not). */
export function commandTools(agent: string, bundle: Bundle, scopes: readonly Scope[]): Tool[] {
  if (!scopes.includes(SEND_SCOPE)) return [];
  return Object.entries(bundle.command ?? {}).map(([name, command]) => commandTool(agent, name, command));
}
