// A session's conversation as the page draws it, built from its event log alone (replayed from seq 1,
// then live): messages with their parts, the text of a reply still streaming (dropped at a retried
// step), tool calls with their results, questions to the user, and how each turn ended. Pure: the
// page folds each event in with `applyEvent`.
import type { MessagePart, MessageView, SessionEvent } from '@agent-service/sdk';

export interface ShownMessage {
  id: string;
  role: MessageView['role'];
  /** The stored parts: from message.created, replaced by message.completed. */
  parts: MessagePart[];
  status: MessageView['status'];
  /** Text streamed so far, while the message is not complete. */
  streamed: string;
  costUsd: number | null;
}

export interface ToolActivity {
  toolCallId: string;
  toolName: string;
  input: unknown;
  executor?: 'client' | 'service';
  result?: { output: unknown; isError: boolean };
}

export interface ShownApproval {
  approvalId: string;
  question: string;
  options: string[];
  expiresAt: string;
  state: 'waiting' | 'answered' | 'expired';
  choice?: string;
  note?: string | null;
}

export type Entry =
  | { kind: 'message'; id: string }
  | { kind: 'approval'; id: string }
  | { kind: 'turn-failed'; error: string; seq: number }
  | { kind: 'turn-aborted'; seq: number };

export interface Conversation {
  entries: Entry[];
  messages: Map<string, ShownMessage>;
  /** Tool calls by id, from events and from stored parts alike. */
  tools: Map<string, ToolActivity>;
  approvals: Map<string, ShownApproval>;
  status: 'idle' | 'running' | 'waiting';
  lastSeq: number;
}

export function emptyConversation(): Conversation {
  return { entries: [], messages: new Map(), tools: new Map(), approvals: new Map(), status: 'idle', lastSeq: 0 };
}

function withMessage(state: Conversation, message: MessageView): Conversation {
  const messages = new Map(state.messages);
  const known = messages.get(message.id);
  messages.set(message.id, {
    id: message.id,
    role: message.role,
    parts: message.parts,
    status: message.status,
    streamed: message.status === 'complete' ? '' : (known?.streamed ?? ''),
    costUsd: message.costUsd ?? null,
  });
  const tools = new Map(state.tools);
  for (const part of message.parts) {
    if (part.type === 'tool-call' && !tools.has(part.toolCallId)) {
      tools.set(part.toolCallId, { toolCallId: part.toolCallId, toolName: part.toolName, input: part.input });
    }
    if (part.type === 'tool-result') {
      const call = tools.get(part.toolCallId) ?? { toolCallId: part.toolCallId, toolName: part.toolName, input: undefined };
      tools.set(part.toolCallId, { ...call, result: { output: part.output, isError: part.isError ?? false } });
    }
  }
  const entries = known ? state.entries : placed(state.entries, message);
  return { ...state, messages, tools, entries };
}

/**
 * Where a new message's entry goes: at the end, but for a compaction's summary right after the last
 * message it stands for, so that what is above the marker is what the model now reads as the summary.
 */
function placed(entries: Conversation['entries'], message: MessageView): Conversation['entries'] {
  const entry = { kind: 'message' as const, id: message.id };
  const compaction = message.parts.find((part) => part.type === 'compaction');
  const through =
    compaction?.type === 'compaction' ? entries.findIndex((e) => e.kind === 'message' && e.id === compaction.throughMessageId) : -1;
  return through < 0 ? [...entries, entry] : [...entries.slice(0, through + 1), entry, ...entries.slice(through + 1)];
}

/** The message a delta or tool call belongs to, made when the event comes before its message.created. */
function ensureMessage(state: Conversation, id: string): Conversation {
  if (state.messages.has(id)) return state;
  return withMessage(state, { id, role: 'assistant', parts: [], status: 'streaming', turnId: null, createdAt: '' });
}

function updateMessage(state: Conversation, id: string, change: (message: ShownMessage) => ShownMessage): Conversation {
  const ensured = ensureMessage(state, id);
  const messages = new Map(ensured.messages);
  messages.set(id, change(messages.get(id)!));
  return { ...ensured, messages };
}

function updateApproval(state: Conversation, id: string, change: Partial<ShownApproval>): Conversation {
  const known = state.approvals.get(id);
  if (!known) return state;
  const approvals = new Map(state.approvals);
  approvals.set(id, { ...known, ...change });
  return { ...state, approvals };
}

export function applyEvent(before: Conversation, event: SessionEvent): Conversation {
  // Each event once: a replay overlapping what was already applied changes nothing.
  if (event.seq <= before.lastSeq) return before;
  const state = { ...before, lastSeq: event.seq };
  switch (event.type) {
    case 'message.created':
    case 'message.completed':
      return withMessage(state, event.message);
    case 'turn.started':
    case 'turn.queued':
      return { ...state, status: 'running' };
    case 'message.part.delta':
      return updateMessage(state, event.messageId, (message) => ({ ...message, streamed: message.streamed + event.delta }));
    case 'step.retry':
      return updateMessage(state, event.messageId, (message) => ({ ...message, streamed: '' }));
    case 'tool.call': {
      const tools = new Map(state.tools);
      tools.set(event.toolCallId, { toolCallId: event.toolCallId, toolName: event.toolName, input: event.input, executor: event.executor });
      const shown = updateMessage(state, event.messageId, (message) =>
        message.parts.some((part) => part.type === 'tool-call' && part.toolCallId === event.toolCallId)
          ? message
          : {
              ...message,
              parts: [...message.parts, { type: 'tool-call', toolCallId: event.toolCallId, toolName: event.toolName, input: event.input }],
            },
      );
      return { ...shown, tools, status: event.executor === 'client' ? 'waiting' : shown.status };
    }
    case 'tool.result': {
      const tools = new Map(state.tools);
      const call = tools.get(event.toolCallId) ?? { toolCallId: event.toolCallId, toolName: event.toolName, input: undefined };
      tools.set(event.toolCallId, { ...call, result: { output: event.output, isError: event.isError ?? false } });
      return { ...state, tools, status: state.status === 'waiting' ? 'running' : state.status };
    }
    case 'approval.requested': {
      const approvals = new Map(state.approvals);
      approvals.set(event.approvalId, {
        approvalId: event.approvalId,
        question: event.question,
        options: event.options,
        expiresAt: event.expiresAt,
        state: 'waiting',
      });
      return { ...state, approvals, status: 'waiting', entries: [...state.entries, { kind: 'approval', id: event.approvalId }] };
    }
    case 'approval.answered':
      return {
        ...updateApproval(state, event.approvalId, { state: 'answered', choice: event.choice, note: event.note }),
        status: 'running',
      };
    case 'approval.expired':
      return { ...updateApproval(state, event.approvalId, { state: 'expired' }), status: 'running' };
    // A vote of several: the approval still waits (its page shows the tally).
    case 'approval.voted':
    case 'approval.escalated':
    case 'approval.delegated':
      return state;
    case 'messages.reverted': {
      const gone = new Set(event.messageIds);
      const messages = new Map([...state.messages].filter(([id]) => !gone.has(id)));
      return { ...state, messages, entries: state.entries.filter((entry) => entry.kind !== 'message' || !gone.has(entry.id)) };
    }
    case 'turn.completed':
      return { ...state, status: 'idle' };
    case 'turn.failed':
      return { ...state, status: 'idle', entries: [...state.entries, { kind: 'turn-failed', error: event.error, seq: event.seq }] };
    case 'turn.aborted':
      return { ...state, status: 'idle', entries: [...state.entries, { kind: 'turn-aborted', seq: event.seq }] };
    default:
      return state;
  }
}

/** The text of a message: its stored text parts, or what streamed so far while it is not complete. */
export function messageText(message: ShownMessage): string {
  const stored = message.parts
    .filter((part): part is Extract<MessagePart, { type: 'text' }> => part.type === 'text')
    .map((part) => part.text)
    .join('');
  return stored || message.streamed;
}
