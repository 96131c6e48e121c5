// Our turns and messages in A2A's shapes (v1.0, as the SDK types them): a task is a turn, its id the
// message that started it, its context the session; its history the turn's user and agent messages, its
// artifact the reply (text, and the structured reply of an agent with `jsonReply`).
import type { Artifact, Message, Part, Task, TaskState } from '@a2a-js/sdk';
import type { MessageView } from '../../contract/events.ts';
import type { TurnState, TurnTask } from '../../store/turn-tasks.ts';

/** The SDK's enums, as numbers (the module is loaded lazily; these are its wire values). */
export const STATE = {
  submitted: 1,
  working: 2,
  completed: 3,
  failed: 4,
  canceled: 5,
  inputRequired: 6,
} as const satisfies Record<string, TaskState>;
const ROLE_USER = 1;
const ROLE_AGENT = 2;

export function taskState(state: TurnState): TaskState {
  switch (state) {
    case 'queued':
      return STATE.submitted;
    case 'running':
      return STATE.working;
    case 'waiting':
      return STATE.inputRequired;
    case 'completed':
      return STATE.completed;
    case 'failed':
      return STATE.failed;
    case 'aborted':
      return STATE.canceled;
  }
}

export const textPart = (text: string): Part => ({
  content: { $case: 'text', value: text },
  metadata: undefined,
  filename: '',
  mediaType: 'text/plain',
});

function partsOf(message: MessageView, base: string): Part[] {
  return message.parts.flatMap((part): Part[] => {
    if (part.type === 'text') return [textPart(part.text)];
    if (part.type === 'json')
      return [{ content: { $case: 'data', value: part.json }, metadata: undefined, filename: '', mediaType: 'application/json' }];
    if (part.type === 'file') {
      // A stored file's URL is the API's path (media/...): absolute here, for a client of another origin.
      const url = part.url.startsWith('media/') ? `${base}/${part.url}` : part.url;
      return [
        { content: { $case: 'url', value: url }, metadata: undefined, filename: part.filename ?? '', mediaType: part.mediaType ?? '' },
      ];
    }
    return [];
  });
}

export function agentMessage(text: string, ids: { sessionId: string; taskId: string; messageId: string }): Message {
  return {
    messageId: ids.messageId,
    contextId: ids.sessionId,
    taskId: ids.taskId,
    role: ROLE_AGENT,
    parts: [textPart(text)],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

/** The turn's user message and agent replies (tool messages and calls left out: the agent's own work). */
export function historyOf(task: Pick<TurnTask, 'sessionId' | 'taskId'>, messages: MessageView[], base: string): Message[] {
  return messages
    .filter((message) => message.role === 'user' || message.role === 'assistant')
    .map((message) => ({
      messageId: message.id,
      contextId: task.sessionId,
      taskId: task.taskId,
      role: message.role === 'user' ? ROLE_USER : ROLE_AGENT,
      parts: partsOf(message, base),
      metadata: undefined,
      extensions: [],
      referenceTaskIds: [],
    }))
    .filter((message) => message.parts.length > 0);
}

/** The reply of an ended turn as its artifact: the last agent message's parts. */
function replyArtifact(task: TurnTask, messages: MessageView[], base: string): Artifact[] {
  const last = messages.filter((message) => message.role === 'assistant').at(-1);
  if (!last || task.state !== 'completed') return [];
  const parts = partsOf(last, base);
  return parts.length
    ? [{ artifactId: `reply-${last.id}`, name: 'reply', description: '', parts, metadata: undefined, extensions: [] }]
    : [];
}

export function taskView(
  task: TurnTask,
  messages: MessageView[],
  base: string,
  options: { statusText?: string; historyLength?: number } = {},
): Task {
  const history = historyOf(task, messages, base);
  const shown = options.historyLength === undefined ? history : options.historyLength <= 0 ? [] : history.slice(-options.historyLength);
  const statusText = options.statusText ?? (task.state === 'failed' ? `The turn failed: ${task.error ?? 'no reason given'}` : undefined);
  return {
    id: task.taskId,
    contextId: task.sessionId,
    status: {
      state: taskState(task.state),
      message: statusText
        ? agentMessage(statusText, { sessionId: task.sessionId, taskId: task.taskId, messageId: `status-${task.taskId}` })
        : undefined,
      timestamp: new Date().toISOString(),
    },
    artifacts: replyArtifact(task, messages, base),
    history: shown,
    metadata: undefined,
  };
}
