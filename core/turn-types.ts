// Types shared by the session and turn workflows and the activities they call. No I/O here.
import type { MessagePart, TokenUsage } from '../contract/events.ts';
import type { ApprovalTeam } from '../contract/bundle.ts';
import type { TurnSettings } from '../lib/workflow-safe/turn-settings.ts';

export interface SessionRef {
  sessionId: string;
  userId: string;
  agentId: string;
  revision: number;
}

/** A model chosen for one turn; without providerId, the agent's provider. */
export interface ModelOverride {
  providerId?: string;
  modelId: string;
}

/**
 * The call of another agent a turn answers (its session is that call's child): the step that completes
 * the turn hands the reply to the caller itself (activities/agent-call-hand-back.ts).
 */
export interface AgentCallReplyTarget {
  parentSessionId: string;
  messageId: string;
  toolCallId: string;
  agent: string;
  callerWorkflowId?: string;
}

export interface TurnInput extends SessionRef {
  turnId: string;
  /**
   * The user message this turn answers, when it is not `turnId` itself: a regenerated turn has an id
   * of its own (its events, its workflow) and writes its messages into the user message's turn.
   */
  userMessageId?: string;
  model?: ModelOverride;
  settings: TurnSettings;
  /** The call of another agent this turn answers, when it does. */
  replyTo?: AgentCallReplyTarget;
}

/** What a model step is given: the turn, which step, and what the step writes of the turn's own events. */
export interface ModelStepInput extends TurnInput {
  messageId: string;
  step: number;
  /** The turn's first step: it writes turn.started with its first message (patch turn-events-by-steps). */
  startsTurn?: boolean;
  /** The turn's usage and cost before this step: given, a final answer completes the turn with the totals. */
  turnTotals?: { usage: TokenUsage; costUsd: number | null };
  /**
   * The turn waits (StepResult.queued) when its user already runs RUNNING_TURNS_PER_USER steps. Only
   * turns that know to wait and ask again say so: a turn of an older worker never gets `queued`.
   */
  mayQueue?: boolean;
  /** The workflow a freed place wakes when it is not the turn's own (a turn run in its session workflow). */
  wakeWorkflowId?: string;
  /**
   * The turn runs a compaction the step asks for (StepResult.compact). Only turns that know to do so say
   * so: an older worker's turn never gets `compact`.
   */
  mayCompact?: boolean;
  /**
   * The turn asks the approvals its tools' policies call for (workflows/tool-approval.ts). A step for a turn
   * of older code (a rolling deploy) refuses such calls instead: that code would run them unasked.
   */
  asksApprovals?: boolean;
  /** A compaction ran for this step already (it asks for none again) ... */
  compacted?: boolean;
  /** ... after this many attempts at its message: its claims go on from there, so an older attempt cannot write. */
  attemptsBefore?: number;
}

/** What a compaction is given: the session, where in it, and what it is for. */
export interface CompactionInput extends SessionRef {
  /** The id of the summary message it stores (made by the workflow, so a retry stores it once). */
  summaryMessageId: string;
  reason: 'threshold' | 'context-length' | 'requested';
  /** The turn whose step asked for it: its conversation is compacted and its events name it. */
  turnId?: string;
  /** That turn's user message, when it differs from turnId (a regenerated turn). */
  userMessageId?: string;
  /** The turn's model, when it was chosen for the turn. */
  model?: ModelOverride;
  /** The window to fit the conversation to, when the step knew better (a provider's refusal named it). */
  windowTokens?: number;
  /** Asked for between turns while the session still saw this turn running: refused unless its end is written. */
  runningTurnId?: string;
  /**
   * The caller waits (PlaceQueued) when the user already runs RUNNING_TURNS_PER_USER steps, calls and
   * compactions. Only workflows that know to wait and ask again say so: an older one's compaction just runs.
   */
  mayQueue?: boolean;
  /** The workflow a freed place wakes: the turn's, or the session's for a compaction between turns. */
  wakeWorkflowId?: string;
}

export interface CompactionResult {
  /** False when there was nothing to summarise (the conversation is a few messages). */
  compacted: boolean;
  summaryMessageId?: string;
  throughMessageId?: string;
  tokensBefore: number;
  tokensAfter: number;
  usage: TokenUsage;
  costUsd: number | null;
}

export interface ToolCall {
  toolCallId: string;
  toolName: string;
  input: unknown;
  /**
   * `client`: a custom tool with valid input; the turn waits for the client's result. `agent`: a call of
   * another agent (its tool `agent_<name>`, valid input): a child session runs it and its reply is the result.
   */
  executor?: 'client' | 'agent';
  /** A custom tool's input that does not match its `parameters`: the model is told, nobody is asked. */
  inputError?: string;
  /**
   * An ask_my_user call that names its approvers (`approvers`, `quorum`, ...), each checked against the
   * user's directory by the step: the turn asks them. Absent from calls recorded before approvers, whose
   * input was read without them.
   */
  asksTeam?: true;
  /**
   * The tool's policy is `ask` (bundle `toolPolicies`): it runs only once the agent's user approves this
   * question (core/tool-policies.ts), written by the service; `team`: these approvers decide it
   * (`{ask: {approvers, quorum?, denyWins?}}`).
   */
  approval?: {
    question: string;
    team?: ApprovalTeam;
    /** An approval older than this when the call is about to run is asked again. */ validForMs?: number;
  };
}

/**
 * The signal a workflow waiting for a place (StepResult.queued, PlaceQueued) is woken with: a step, tool
 * call or compaction of its user gave one back (activities/turn/step-queue.ts). Its argument, when given,
 * is the key of the waiting call it wakes (core/place-keys.ts); a step's wake-up names none.
 */
export const STEP_PLACE_FREED = 'stepPlaceFreed';

/**
 * What a tool call or compaction asked with `mayQueue` answers when its user already runs as many steps,
 * calls and compactions as it may (RUNNING_TURNS_PER_USER): nothing ran; the workflow waits for a place
 * (STEP_PLACE_FREED) and asks again. Results recorded before places were taken never hold `queued`.
 */
export interface PlaceQueued {
  queued: true;
  /**
   * A tool call's activity queued at a retry: an earlier attempt had a place and may have acted. Its
   * approval's validity (`approvedUntil`) is then not checked again: the call goes on to run.
   */
  ran?: true;
}

export const isPlaceQueued = (result: object): result is PlaceQueued => (result as { queued?: unknown }).queued === true;

/**
 * Attempts of a tool call the service runs (its activity's retry policy). The call's last attempt turns
 * a server it cannot reach into a tool error the model reads, rather than fail the turn.
 */
export const TOOL_CALL_ATTEMPTS = 3;

export interface StepResult {
  /**
   * The step did not call the model: the conversation is past the compaction threshold of the model's
   * window (estimated), or the provider refused it as too long. The turn compacts it and runs the step
   * again (ModelStepInput.compacted). `windowTokens`: the window it found, or the one the provider's refusal
   * named, which the compaction fits the conversation to. `attempts`: the attempts made at its message so far.
   */
  compact?: { reason: 'threshold' | 'context-length'; tokensBefore: number; windowTokens: number; attempts: number };
  /**
   * The step did not run: its user already runs as many steps as it may (RUNNING_TURNS_PER_USER). The
   * turn waits a moment and asks again; nothing of the step was written but the turn's `turn.queued`.
   */
  queued?: true;
  messageId: string;
  text: string;
  toolCalls: ToolCall[];
  /** With `jsonReply`, a final reply that is not valid against its schema: what is wrong, for the model. */
  replyErrors?: string[];
  /** With `jsonReply`: how many invalid replies the model may correct (its `retries`). */
  replyRetries?: number;
  /** The user messages of this turn the step read (its own, and messages that steered it meanwhile). */
  turnUserMessageIds?: string[];
  finishReason: string;
  usage: TokenUsage;
  costUsd: number | null;
  /** The step wrote turn.completed (ModelStepInput.turnTotals): the turn is over. */
  turnCompleted?: true;
  /**
   * The step saw to turn.started (ModelStepInput.startsTurn). Only 0.1.0's workflow code reads it: a step
   * result without it has that code write turn.started itself, a local activity this release's code
   * does not issue. Written until 0.3.0, so a 0.1.0 run served by a 0.2.0 worker in a rolling deploy still
   * replays on 0.2.0 (docs/operating.md, "Upgrades and workflow versions").
   */
  turnStarted?: true;
  /**
   * The tool-policy rules that classified the step's calls (TOOL_POLICY_RULES). Only 0.1.0's workflow code
   * reads it: a step result with calls and without it has that code refuse every call and record a patch
   * marker this release's code does not ask. Written until 0.3.0, as turnStarted.
   */
  policies?: number;
  /**
   * The step wrote turn.completed while its user had no active webhook subscription to session.completed:
   * publishing that event would record no delivery. Absent when unknown (a step finished before, an older worker).
   */
  completionUnsubscribed?: true;
  /**
   * The step completed a turn that answers another agent's call (ModelStepInput.replyTo) and handed the
   * reply to the caller itself: its session workflow need not. Absent: the workflow does (an older worker, a failed hand-back).
   */
  answerHandedBack?: true;
}

/** The tool-policy rules a step classifies its calls by (StepResult.policies). */
export const TOOL_POLICY_RULES = 1;

export type ToolResultPart = Extract<MessagePart, { type: 'tool-result' }>;

/**
 * A service tool's result as its activity answers it: `signIn` when the call could not run because its
 * MCP server needs its user to sign in (the turn then asks them, workflows/connect-wait.ts). Never stored:
 * the turn records the result without it.
 */
export type ServiceToolResult = ToolResultPart & {
  signIn?: { serverId: string };
  /**
   * The call did not run: its approval had grown older than its policy's validForMs when it was about to
   * (it waited for a place among its user's running turns). The turn asks again (workflows/tool-approval.ts).
   */
  staleApproval?: true;
};

export interface TurnOutcome {
  status: 'completed' | 'failed' | 'aborted';
  usage: TokenUsage;
  costUsd: number | null;
  /** The text of the turn's last model step: its answer (a workflow graph passes it on). */
  reply?: string;
  /** Messages that steered this turn (ifBusy=steer) and that a model step of it read. */
  steered?: string[];
  /**
   * Every user message of the turn its steps read, steering ones included whether or not the turn was
   * told of them yet: a message the API joined to the turn (store/session-inbox.ts) can be read by a
   * step before the session workflow takes it from its inbox. Absent from outcomes recorded before it.
   */
  read?: string[];
  /** Its last step completed it with no webhook subscription to session.completed (StepResult.completionUnsubscribed). */
  completionUnsubscribed?: true;
  /** Its last step handed the reply to the agent whose call it answers (StepResult.answerHandedBack). */
  answerHandedBack?: true;
}
