// Every failure type that crosses the line between a workflow (or activity) and its callers, defined
// once. Workflows and activities throw `ApplicationFailure`s with one of these types; callers read the
// type back with `failureType()` (never a failure's message text), and the API turns it into an HTTP
// status through one table (api/failure-problems.ts). Retry policies name non-retryable types from
// here too, so a renamed type cannot silently become retryable.
import { ApplicationFailure } from '@temporalio/common';
import { causeChain } from './errors.ts';

export const FAILURE = {
  // Update rejections and failures the API answers (see api/failure-problems.ts).
  /** A send with ifBusy=reject, or a revert, while a turn runs or is queued. */
  sessionBusy: 'SessionBusy',
  /** A revert or regenerate naming a message the session does not have. */
  messageNotFound: 'MessageNotFound',
  /** A compaction whose messages a revert took out of the conversation while it summarised them: nothing stored. */
  conversationReverted: 'ConversationReverted',
  /** A regenerate naming a message that is not the assistant's. */
  notAnAssistantMessage: 'NotAnAssistantMessage',
  approvalAnswered: 'ApprovalAlreadyAnswered',
  approvalExpired: 'ApprovalExpired',
  approvalInvalidChoice: 'ApprovalInvalidChoice',
  /** A client's tool result for a call that is answered already, timed out, or not this turn's to await. */
  toolCallNotAwaited: 'ToolCallNotAwaited',

  // A turn and its model steps.
  /** The turn workflow's own failure: operators see a failed turn as a failed workflow. */
  turnFailed: 'TurnFailed',
  /** The provider may answer another attempt (rate limit, outage, lost connection): retried. */
  modelTransient: 'ModelTransientError',
  /** The provider refused the request (bad key, bad request): not retried. */
  modelRejected: 'ModelRequestRejected',
  /** The agent's model cannot be configured (unknown provider, missing key or base URL): not retried. */
  modelConfiguration: 'ModelConfigurationError',
  /** A step's output went past MODEL_STEP_MAX_OUTPUT_*: not retried, another attempt would stream the same. */
  modelOutputLimit: 'ModelOutputLimitExceeded',
  /** A monthly spend budget (the user's or the agent's) is spent: no model call until it is raised or the month turns. */
  budgetSpent: 'BudgetSpent',
  /** A budget applies and nothing prices the model (no table price, no operator price, no cost its provider reports): not called. */
  budgetUnpriced: 'BudgetUnpricedModel',
  /** A reply that had to match `jsonReply.schema` still did not after its retries: the turn fails. */
  replyInvalid: 'ReplyInvalid',
  /** A message PostgreSQL cannot store (see activities/turn/bookkeeping.ts): not retried. */
  unstorableMessage: 'UnstorableMessage',

  // Channels, deliveries, graphs and triggers.
  /** A channel refused for good (bad token, unknown chat): the next channel is tried instead. */
  channelPermanent: 'ChannelPermanentError',
  webhookUndelivered: 'WebhookUndelivered',
  /** The receiver answered 410 Gone: its subscription is disabled. */
  webhookGone: 'WebhookGone',
  nodeFailed: 'NodeFailed',
  invalidApprovalNode: 'InvalidApprovalNode',
  /** An approval node reached while its user has OPEN_APPROVALS_PER_USER unanswered: the run fails. */
  approvalNodeOverLimit: 'ApprovalNodeOverLimit',
  runTooLong: 'RunTooLong',
  unknownNode: 'UnknownNode',
  unknownWorkflow: 'UnknownWorkflow',
} as const;

export type FailureType = (typeof FAILURE)[keyof typeof FAILURE];

const FAILURE_TYPES: ReadonlySet<string> = new Set(Object.values(FAILURE));

/** The first of our failure types along the error's cause chain, with its failure. */
export function failureOf(error: unknown): (ApplicationFailure & { type: FailureType }) | undefined {
  for (const current of causeChain(error)) {
    if (current instanceof ApplicationFailure && current.type && FAILURE_TYPES.has(current.type)) {
      return current as ApplicationFailure & { type: FailureType };
    }
  }
  return undefined;
}

export function failureType(error: unknown): FailureType | undefined {
  return failureOf(error)?.type;
}

/** A failure no retry can fix: an Update's rejection, a refused request, a run that cannot go on. */
export function nonRetryable(type: FailureType, message: string): ApplicationFailure {
  return ApplicationFailure.nonRetryable(message, type);
}
