// The turns a soak sends, the agent that takes them, and what the fake model answers. A user message
// names its kind in brackets; the model answers a kind with a tool call (or text), and any tool
// result with a final text, streamed in many small chunks so that kills land mid-stream.
import type { FakeHandler, FakeScript } from '../test/helpers/fakes/fake-model.ts';
import { lastUserText, messageText } from '../test/helpers/fakes/fake-model.ts';

/** The instructions of the agent the soak agent calls (`subagent` turns): its requests are told apart by them. */
const HELPER_INSTRUCTIONS = 'You are the soak helper.';

export const TURN_KINDS = ['text', 'tool', 'ask', 'client', 'guarded', 'subagent', 'quorum'] as const;
export type TurnKind = (typeof TURN_KINDS)[number];

/** How a turn is sent: `?async=1` (202 at once), waiting for its answer, or streamed (SSE). */
export const SEND_MODES = ['async', 'waiting', 'streamed'] as const;
export type SendMode = (typeof SEND_MODES)[number];

export const CLIENT_TOOL = 'lookup_order';
/** A tool the soak agent's policy asks about before every call (bundle `toolPolicies`). */
export const GUARDED_TOOL = 'list_workspace_files';
/** A tool whose policy asks a team: the soak's user and SOAK_APPROVER, both needed (`quorum` turns). */
export const QUORUM_TOOL = 'read_workspace_file';
/** The approver of the soak user's directory who votes with the user on `quorum` turns, by their own link. */
export const SOAK_APPROVER = 'soak-approver';

export function userText(kind: TurnKind, label: string): string {
  return `[${kind}] ${label}`;
}

function kindOf(text: string | undefined): TurnKind {
  const kind = /^\[(\w+)\]/.exec(text ?? '')?.[1];
  return (TURN_KINDS as readonly string[]).includes(kind ?? '') ? (kind as TurnKind) : 'text';
}

const WORDS = 'the quick brown fox jumps over the lazy dog while the soak kills a process now and then'.split(' ');

/** About 40 chunks a few milliseconds apart: long enough to be cut by a kill. */
function reply(label: string): FakeScript {
  const chunks = Array.from({ length: 40 }, (_, index) => `${WORDS[index % WORDS.length]} `);
  return { text: [`(${label}) `, ...chunks], chunkDelayMs: 5 };
}

let calls = 0;

export const modelHandler: FakeHandler = (request) => {
  const messages = request.body.messages;
  const label = lastUserText(request)?.slice(0, 40) ?? '';
  // The helper's turn (a child session of a `subagent` turn's call): a streamed reply, cut by kills too.
  if (messageText(messages.find((message) => message.role === 'system'))?.includes(HELPER_INSTRUCTIONS)) return reply(`helper: ${label}`);
  if (messages.at(-1)?.role === 'tool') return reply(`after tool: ${label}`);
  const id = `call_soak_${++calls}`;
  switch (kindOf(lastUserText(request))) {
    case 'text':
      return reply(label);
    case 'tool':
      return { toolCalls: [{ id, name: 'current_time', arguments: { timezone: 'Europe/Paris' } }] };
    case 'ask':
      return { toolCalls: [{ id, name: 'ask_my_user', arguments: { question: `Go on with ${label}?`, options: ['yes', 'no'] } }] };
    case 'client':
      return { toolCalls: [{ id, name: CLIENT_TOOL, arguments: { orderId: label } }] };
    case 'guarded':
      // Two calls of a tool whose policy asks first: two approvals, asked at once, each run once approved.
      return {
        toolCalls: [
          { id, name: GUARDED_TOOL, arguments: {} },
          { id: `${id}_b`, name: GUARDED_TOOL, arguments: {} },
        ],
      };
    case 'quorum':
      // A call two approvers must approve: their votes race (soak/driver.ts), one of them decides.
      return { toolCalls: [{ id, name: QUORUM_TOOL, arguments: { path: 'notes.md' } }] };
    case 'subagent': {
      // A call of the helper agent: a child session whose streamed reply is the call's result.
      const tool = request.body.tools?.find((offered) => offered.function.name.startsWith('agent_'))?.function.name ?? 'agent_missing';
      return { toolCalls: [{ id, name: tool, arguments: { message: `help with ${label}` } }] };
    }
  }
};

/** The agent the soak agent calls in `subagent` turns: text only, streamed. */
export function soakHelperBundle(name: string): Record<string, unknown> {
  return { name, model: { providerId: 'openai-compatible', modelId: 'fake-model' }, instructions: HELPER_INSTRUCTIONS };
}

/**
 * The agent every session talks to (and calls a helper agent in `subagent` turns): the `time` server, the `workspace` server under an `ask` policy, a
 * tool its client runs, and two channels for its questions, one that takes them and one whose address
 * the outbound guard refuses for good.
 */
export function soakBundle(name: string, receiverUrl: string, helperName: string): Record<string, unknown> {
  return {
    name,
    agents: [{ name: helperName }],
    model: { providerId: 'openai-compatible', modelId: 'fake-model' },
    instructions: 'You are the soak agent.',
    mcps: ['time', 'workspace'],
    toolPolicies: { workspace: { '*': 'ask', [QUORUM_TOOL]: { ask: { approvers: ['me', SOAK_APPROVER], quorum: 2 } } } },
    workspaceFiles: { 'notes.md': 'soak notes' },
    customTools: [
      {
        id: CLIENT_TOOL,
        description: 'Look up an order',
        parameters: { type: 'object', properties: { orderId: { type: 'string' } }, required: ['orderId'] },
      },
    ],
    userChannels: [
      { provider: 'webhook', config: { url: receiverUrl } },
      { provider: 'webhook', config: { url: 'http://169.254.169.254/refused' } },
    ],
  };
}
