// The tool through which an agent calls another (docs/tools.md, "Calling other agents"): its name,
// its input and how that input is read. One rule, used by the deploy check, the tools a step declares,
// the step's classification of its calls and the activity that starts the child session.
import type { ToolServerTool } from '../../contract/tool-servers.ts';
import type { FieldError } from './errors.ts';

/** A callable agent's tool is this prefix and the agent's name. */
export const AGENT_TOOL_PREFIX = 'agent_';

/** Providers take tool names of at most 64 characters: the prefix leaves this much for the agent's name. */
export const MAX_CALLABLE_AGENT_NAME = 64 - AGENT_TOOL_PREFIX.length;

/** The most characters of a message one agent sends another in one call. */
export const MAX_AGENT_CALL_MESSAGE = 65_536;

export function agentToolName(agentName: string): string {
  return `${AGENT_TOOL_PREFIX}${agentName}`;
}

/** The JSON Schema of an agent tool's input, as the model is told it. */
export const agentToolInputSchema = {
  type: 'object',
  properties: {
    message: { type: 'string', minLength: 1, maxLength: MAX_AGENT_CALL_MESSAGE, description: 'What to ask or tell the agent.' },
    sessionId: {
      type: 'string',
      description: "Continue the conversation of an earlier call: the `sessionId` of that call's result. Without it, a new conversation.",
    },
  },
  required: ['message'],
  additionalProperties: false,
} as const;

export interface AgentCallInput {
  message: string;
  sessionId?: string;
}

/** The call's input, or what is wrong with it (the model reads that as the call's error). */
export function readAgentCallInput(input: unknown): AgentCallInput | { problem: string } {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return { problem: 'Invalid input: it must be an object.' };
  const { message, sessionId, ...rest } = input as Record<string, unknown>;
  const unknown = Object.keys(rest);
  if (unknown.length > 0) return { problem: `Invalid input: unknown member "${unknown[0]}"; it takes message and sessionId.` };
  if (typeof message !== 'string' || message.trim().length === 0) return { problem: 'Invalid input: message must be a non-empty string.' };
  if (message.length > MAX_AGENT_CALL_MESSAGE)
    return { problem: `Invalid input: message is longer than ${MAX_AGENT_CALL_MESSAGE} characters.` };
  if (sessionId !== undefined && typeof sessionId !== 'string') return { problem: 'Invalid input: sessionId must be a string.' };
  return { message, ...(sessionId ? { sessionId } : {}) };
}

/** The tool's description when the bundle gives none: from the callee's instructions. */
export function agentToolDescription(agentName: string, instructions: string | undefined): string {
  const head = (instructions ?? '').trim().replace(/\s+/g, ' ').slice(0, 400);
  const intro = `Ask the agent "${agentName}" and get its reply. Its result names the sessionId that continues that conversation.`;
  return head ? `${intro} The agent's instructions begin: ${head}` : intro;
}

/** A callable agent as deploy resolved it, kept with the revision that may call it. */
export interface CallableAgent {
  name: string;
  agentId: string;
  /** The revision every call runs; absent, the callee's live revision at each call. */
  revision?: number;
  /** The tool's description the model reads. */
  description: string;
}

/**
 * An agent's tool (`agent_<name>`) whose name a remote MCP server's tool has too (listed at this deploy):
 * the model could not tell them apart. One located error per such agent.
 */
export function agentToolsTaken(
  bundle: { agents?: readonly { name: string }[] },
  remote: Record<string, readonly ToolServerTool[]>,
): FieldError[] {
  const remoteNames = new Map(Object.entries(remote).flatMap(([server, tools]) => tools.map((tool) => [tool.name, server] as const)));
  return (bundle.agents ?? []).flatMap((entry, index) => {
    const server = remoteNames.get(agentToolName(entry.name));
    return server === undefined
      ? []
      : [
          {
            path: `/agents/${index}/name`,
            message: `the tool server "${server}" has a tool "${agentToolName(entry.name)}", the tool through which this agent is called`,
          },
        ];
  });
}
