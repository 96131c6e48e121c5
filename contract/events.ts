// The events of a session, as stored and as streamed: `{seq, type, at, sessionId, ...data}`. The
// data of each type is defined here once; writers and readers import these types.

export interface TokenUsage {
  /** All input tokens, those read from or written to the provider's prompt cache included. */
  inputTokens: number;
  outputTokens: number;
  /** Of the input, read from the provider's prompt cache (present when the provider reported some). */
  cacheReadTokens?: number;
  /** Of the input, written to the provider's prompt cache (present when the provider reported some). */
  cacheWriteTokens?: number;
}

export type MessagePart =
  | { type: 'text'; text: string }
  | { type: 'file'; url: string; mediaType?: string; filename?: string }
  | { type: 'tool-call'; toolCallId: string; toolName: string; input: unknown }
  | { type: 'tool-result'; toolCallId: string; toolName: string; output: unknown; isError?: boolean }
  /** The structured reply of an agent with `jsonReply`, beside the text it was read from. */
  | { type: 'json'; json: unknown }
  /**
   * A subtask's reply, come back into the session its command was called from: the child session and
   * its reply message (null when the subtask ended without one), beside the reply's text (and json).
   */
  | {
      type: 'subtask';
      sessionId: string;
      messageId: string | null;
      status: 'completed' | 'failed' | 'aborted';
      command?: string;
      /** Why a failed subtask failed (its `turn.failed` error). */
      error?: string;
    }
  /**
   * On a `summary` message (a compaction): the conversation up to and including `throughMessageId` is
   * what its text part summarises. The model is sent the summary in place of those messages; the
   * messages themselves stay stored and listed.
   */
  | { type: 'compaction'; throughMessageId: string; tokensBefore: number; tokensAfter: number };

/** `summary`: a compaction's summary of the conversation before it (docs/models.md, "Long conversations"). */
export type MessageRole = 'user' | 'assistant' | 'tool' | 'summary';
export type MessageStatus = 'streaming' | 'complete' | 'aborted' | 'failed';

export interface MessageView {
  id: string;
  role: MessageRole;
  parts: MessagePart[];
  status: MessageStatus;
  /** The user message whose turn produced this message (its own id for a user message). */
  turnId: string | null;
  model?: { providerId: string; modelId: string } | null;
  usage?: TokenUsage | null;
  costUsd?: number | null;
  /** In a fork: the id of the message this one copies. */
  copiedFrom?: string;
  createdAt: string;
}

export interface EventData {
  /**
   * `parentSessionId`: a subtask's session, opened by a command called from that session, or a child
   * session another agent's tool call opened (`parentToolCallId`: that call).
   */
  'session.created': { agentId: string; revision: number; forkedFrom?: string; parentSessionId?: string; parentToolCallId?: string };
  'message.created': { message: MessageView };
  /** `userMessageId`: the user message a regenerated turn answers (otherwise it is `turnId` itself). */
  'turn.started': { turnId: string; userMessageId?: string };
  /**
   * The turn waits for a place among its user's running turns (RUNNING_TURNS_PER_USER, `limit`): it
   * starts (or goes on) by itself once one frees. Written once per turn, whichever step waited.
   */
  'turn.queued': { turnId: string; limit: number };
  'message.part.delta': { messageId: string; delta: string };
  'step.retry': { messageId: string; attempt: number };
  /**
   * `executor`: who runs the call. `client`: a custom tool whose result the session waits for
   * (POST /session/<id>/tool-result); `service`: everything else. Absent on events written before it existed.
   * `idempotencyKey`: the same for every attempt of this call and no other (lib/tool-call-keys.ts): a tool
   * with a side effect does it once per key. Absent on events written before it existed.
   */
  'tool.call': {
    messageId: string;
    toolCallId: string;
    toolName: string;
    input: unknown;
    executor?: 'client' | 'service';
    idempotencyKey?: string;
  };
  'tool.result': { messageId: string; toolCallId: string; toolName: string; output: unknown; isError?: boolean };
  'message.completed': { message: MessageView };
  /**
   * A reply that had to be JSON valid against the agent's `jsonReply.schema` was not: the model is told
   * `errors` and tries again (`attempt` counts the invalid replies of this turn, from 1).
   */
  'reply.invalid': { messageId: string; attempt: number; errors: string[] };
  'turn.completed': { turnId: string; usage: TokenUsage; costUsd: number | null };
  'turn.failed': { turnId: string; error: string };
  'turn.aborted': { turnId: string };
  /**
   * The conversation up to `throughMessageId` was summarised into message `summaryMessageId` (role
   * `summary`): the model is sent that summary in its place from now on. Token counts are estimates of
   * what the model is sent, before and after. `reason`: past the threshold (COMPACTION_THRESHOLD), the
   * provider's context-length error, or `POST /session/<id>/compact`.
   */
  'session.compacted': {
    throughMessageId: string;
    summaryMessageId: string;
    tokensBefore: number;
    tokensAfter: number;
    reason: 'threshold' | 'context-length' | 'requested';
    turnId?: string;
  };
  /** These messages left the conversation (revert or regenerate), in conversation order. */
  'messages.reverted': { messageIds: string[] };
  /**
   * A question to the user, now waiting for its answer. Its answer links are not here: events are
   * readable with `read`, and a link answers; GET /approval/<id> shows them to keys that may answer.
   */
  'approval.requested': {
    approvalId: string;
    question: string;
    options: string[];
    expiresAt: string;
    source: 'tool' | 'workflow' | 'api';
    turnId?: string;
    toolCallId?: string;
    /** It asks the user to sign in to this MCP server of theirs; only the sign-in finishing answers it. */
    connect?: { serverId: string };
  };
  'approval.answered': {
    approvalId: string;
    choice: string;
    note: string | null;
    via: string;
    answeredAt: string;
    /** An approval a team answers (docs/approvals.md): the approver whose vote decided it, and the votes per option then. */
    approver?: string;
    tally?: Record<string, number>;
  };
  /**
   * An approver of an approval a team answers voted, and it waits on more votes: `tally` counts each
   * option's votes so far, `quorum` how many decide one. The deciding vote is `approval.answered`.
   */
  'approval.voted': {
    approvalId: string;
    approver: string;
    choice: string;
    note: string | null;
    via: string;
    votedAt: string;
    tally: Record<string, number>;
    quorum: number;
  };
  'approval.expired': { approvalId: string; expiredAt: string };
  /** An approval a team answers waited past an escalation step (`step`, from 0): these approvers joined it. */
  'approval.escalated': { approvalId: string; step: number; approvers: string[] };
  /** An approver of an approval a team answers handed their vote to another approver, who votes in their place. */
  'approval.delegated': { approvalId: string; from: string; to: string };
  /** The session was opened by a trigger (cron or webhook) or a workflow run started through the API. */
  'trigger.fired': {
    trigger: { kind: 'cron' | 'webhook' | 'api'; index?: number; expression?: string; timezone?: string };
    firedAt: string;
    workflow?: string;
    runId?: string;
  };
  'workflow.started': { runId: string; workflow: string; input: string | null };
  /** The run entered a node; `visit` counts the nodes entered so far (1 for the start node). */
  'workflow.node': { runId: string; visit: number; nodeId: string; nodeType: 'agent' | 'approval' | 'end' };
  'workflow.completed': { runId: string; outputs: Record<string, unknown> };
  'workflow.failed': { runId: string; error: string };
  /**
   * A tool call of this session's turn called another agent (docs/tools.md, "Calling other agents"):
   * its message went to the child session `childSessionId` (new, or continued), whose turn runs now.
   */
  'subagent.started': { messageId: string; toolCallId: string; agent: string; childSessionId: string; childMessageId: string };
  /** The child's turn ended with a reply, which is the call's result (its `tool.result` follows). */
  'subagent.completed': { messageId: string; toolCallId: string; agent: string; childSessionId: string };
  /** The child's turn failed or was aborted: the call's result is an error the model reads. */
  'subagent.failed': {
    messageId: string;
    toolCallId: string;
    agent: string;
    childSessionId: string;
    status: 'failed' | 'aborted';
    error: string;
  };
  /**
   * A session down this call's chain (the child itself, or one the child called) waits on someone:
   * `on` an approval or a client's tool results. `GET /session/<id>` says on what (`waitingFor`).
   */
  'subagent.waiting': {
    messageId: string;
    toolCallId: string;
    agent: string;
    childSessionId: string;
    waitingSessionId: string;
    on: 'approval' | 'tool';
  };
}

export type EventType = keyof EventData;

export const TERMINAL_TURN_EVENTS: readonly EventType[] = ['turn.completed', 'turn.failed', 'turn.aborted'];

export type NewEvent = { [T in EventType]: { type: T; data: EventData[T] } }[EventType];

export type SessionEvent = { [T in EventType]: { seq: number; type: T; at: string; sessionId: string } & EventData[T] }[EventType];

/**
 * An event of a child session of an agent call, relayed on its caller's SSE stream when the client asked
 * (`?children=1`; docs/tools.md, "Calling other agents"). Not one of the caller's events: not stored, no
 * `id:` and no seq of the caller's, so it never moves `Last-Event-ID`. A child's child is relayed too.
 */
export interface RelayedEvent {
  type: 'subagent.event';
  /** The session whose stream this is. */
  sessionId: string;
  /** The session whose call opened `event.sessionId` (the stream's session, for a child). */
  parentSessionId: string;
  toolCallId: string;
  agent: string;
  /** The child's event, as its own stream shows it (`event.sessionId` is the child). */
  event: SessionEvent;
}
