// The one door from the SDK to the service's public contract (contract/ at the repository root).
// Types only, so nothing of the contract runs in the SDK and its types can never drift from what the
// server validates with. The build (scripts/build.mjs) writes these types out in full into
// dist/contract.d.ts, so a consumer of the package needs nothing of the repository.
export type { SessionEvent, RelayedEvent, EventType, EventData, MessagePart, MessageView, TokenUsage } from '../../contract/events.ts';
export type { PublishedEvent, WebhookEventType, WebhookEventData } from '../../contract/webhook-events.ts';
export type { Problem, FieldError } from '../../contract/problems.ts';
export type { Bundle } from '../../contract/bundle.ts';
export type { Scope } from '../../contract/scopes.ts';
export type { Deployed, AgentList, AgentDetail, RevisionList, Revision, InvalidBundle } from '../../contract/operations/agents.ts';
export type { LiveChangeView, RevisionChangeView, TrafficView } from '../../contract/operations/revisions.ts';
export type {
  EvalRunBody,
  EvalRunView,
  EvalRunList,
  EvalSetSummary,
  EvalSetView,
  EvalSetList,
  Expectation,
  GraderSpec,
  Verdict,
} from '../../contract/operations/evals.ts';
export type {
  ApprovalView,
  CreateApprovalBody,
  AnswerBody,
  Answered,
  VoteCounted,
  DelegateBody,
  ApprovalPage,
  ListApprovalsQuery,
} from '../../contract/operations/approvals.ts';
export type {
  ApproverView,
  ApproverList,
  PutApproverBody,
  ApproverGroupView,
  ApproverGroupList,
  PutApproverGroupBody,
} from '../../contract/operations/approvers.ts';
export type { CommandBody, CommandReply } from '../../contract/operations/commands.ts';
export type { RequestDeviceCodeBody, DeviceCode, DeviceAuthorization, DeviceTokenProblem } from '../../contract/operations/device.ts';
export type { OAuthAuthorizationView, OAuthDecision } from '../../contract/operations/oauth.ts';
export type { Health, Readiness } from '../../contract/operations/health.ts';
export type { Usage } from '../../contract/operations/usage.ts';
export type { Limits } from '../../contract/operations/limits.ts';
export type { IfBusy } from '../../contract/if-busy.ts';
export type { Budget, BudgetBody } from '../../contract/operations/budgets.ts';
export type { KeyListing, CreateKeyBody, CreatedKey, CreateUserBody, CreatedUser, KeyList } from '../../contract/operations/keys.ts';
export type { Media } from '../../contract/operations/media.ts';
export type { SchemaList } from '../../contract/operations/meta.ts';
export type { SecretInfo, PutSecretBody, SecretList } from '../../contract/operations/secrets.ts';
export type { EventPage } from '../../contract/operations/session-events.ts';
export type {
  RevertBody,
  RegenerateBody,
  Compacted,
  Forked,
  Reverted,
  Regenerated,
  RegenerateAccepted,
} from '../../contract/operations/session-history.ts';
export type {
  SessionView,
  SendBody,
  ModelOverrideBody,
  TurnReply,
  TurnAccepted,
  CreatedSession,
  SessionPage,
  SessionWithMessages,
} from '../../contract/operations/sessions.ts';
export type {
  ToolServerList,
  ToolServerView,
  RemoteToolServerView,
  PutMcpServerBody,
  McpConnectStarted,
  McpConnectionView,
  McpAuthBody,
  ToolResultBody,
  ToolResultAnswer,
} from '../../contract/operations/tools.ts';
export type { RunBody, RunStarted, RunView } from '../../contract/operations/triggers.ts';
export type {
  CreateWebhookBody,
  WebhookSubscription,
  CreatedWebhook,
  WebhookDelivery,
  WebhookList,
  DeliveryPage,
} from '../../contract/operations/webhooks.ts';
