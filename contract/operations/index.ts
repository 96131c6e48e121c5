// Every operation of the HTTP API, by its operationId. The server mounts exactly these (a test walks
// the Express router to prove it), and the OpenAPI document lists them in this order.
import * as agents from './agents.ts';
import * as revisions from './revisions.ts';
import * as evals from './evals.ts';
import * as agentMcp from './agent-mcp.ts';
import * as agentA2a from './agent-a2a.ts';
import * as oauth from './oauth.ts';
import * as approvals from './approvals.ts';
import * as approvers from './approvers.ts';
import * as commands from './commands.ts';
import * as device from './device.ts';
import * as codec from './codec.ts';
import * as health from './health.ts';
import * as usage from './usage.ts';
import * as limits from './limits.ts';
import * as budgets from './budgets.ts';
import * as keys from './keys.ts';
import * as media from './media.ts';
import * as meta from './meta.ts';
import * as secrets from './secrets.ts';
import * as sessionEvents from './session-events.ts';
import * as sessionHistory from './session-history.ts';
import * as sessions from './sessions.ts';
import * as triggers from './triggers.ts';
import * as tools from './tools.ts';
import * as webhooks from './webhooks.ts';
import type { Operation } from './operation.ts';

export const OPERATIONS = {
  getHealth: health.getHealth,
  getLiveness: health.getLiveness,
  getReadiness: health.getReadiness,
  listKeys: keys.listKeys,
  createKey: keys.createKey,
  deleteKey: keys.deleteKey,
  createUser: keys.createUser,
  requestDeviceCode: device.requestDeviceCode,
  pollDeviceToken: device.pollDeviceToken,
  getDeviceAuthorization: device.getDeviceAuthorization,
  approveDeviceAuthorization: device.approveDeviceAuthorization,
  denyDeviceAuthorization: device.denyDeviceAuthorization,
  deployAgent: agents.deployAgent,
  listAgents: agents.listAgents,
  getAgent: agents.getAgent,
  listRevisions: agents.listRevisions,
  getRevision: agents.getRevision,
  deleteAgent: agents.deleteAgent,
  promoteRevision: revisions.promoteRevision,
  rollbackRevision: revisions.rollbackRevision,
  setRevisionTraffic: revisions.setRevisionTraffic,
  createEvalRun: evals.createEvalRun,
  getEvalRun: evals.getEvalRun,
  listEvalRuns: evals.listEvalRuns,
  cancelEvalRun: evals.cancelEvalRun,
  putEvalSet: evals.putEvalSet,
  getEvalSet: evals.getEvalSet,
  listEvalSets: evals.listEvalSets,
  runCommand: commands.runCommand,
  postAgentMcp: agentMcp.postAgentMcp,
  getAgentMcp: agentMcp.getAgentMcp,
  deleteAgentMcp: agentMcp.deleteAgentMcp,
  getAgentA2aCard: agentA2a.getAgentA2aCard,
  postAgentA2a: agentA2a.postAgentA2a,
  getAuthorizationServerMetadata: oauth.getAuthorizationServerMetadata,
  getProtectedResourceMetadata: oauth.getProtectedResourceMetadata,
  authorizeOAuth: oauth.authorizeOAuth,
  exchangeOAuthToken: oauth.exchangeOAuthToken,
  registerOAuthClient: oauth.registerOAuthClient,
  revokeOAuthToken: oauth.revokeOAuthToken,
  getOAuthAuthorization: oauth.getOAuthAuthorization,
  decideOAuthAuthorization: oauth.decideOAuthAuthorization,
  listSecrets: secrets.listSecrets,
  putSecret: secrets.putSecret,
  deleteSecret: secrets.deleteSecret,
  createSession: sessions.createSession,
  listSessions: sessions.listSessions,
  getSession: sessions.getSession,
  sendMessage: sessions.sendMessage,
  abortSession: sessions.abortSession,
  submitToolResult: tools.submitToolResult,
  listSessionEvents: sessionEvents.listSessionEvents,
  forkSession: sessionHistory.forkSession,
  revertSession: sessionHistory.revertSession,
  regenerateReply: sessionHistory.regenerateReply,
  compactSession: sessionHistory.compactSession,
  uploadMedia: media.uploadMedia,
  downloadMedia: media.downloadMedia,
  createWebhook: webhooks.createWebhook,
  listWebhooks: webhooks.listWebhooks,
  deleteWebhook: webhooks.deleteWebhook,
  listDeliveries: webhooks.listDeliveries,
  createApproval: approvals.createApproval,
  listApprovals: approvals.listApprovals,
  getApproval: approvals.getApproval,
  answerApproval: approvals.answerApproval,
  delegateApproval: approvals.delegateApproval,
  listApprovers: approvers.listApprovers,
  getApprover: approvers.getApprover,
  putApprover: approvers.putApprover,
  deleteApprover: approvers.deleteApprover,
  listApproverGroups: approvers.listApproverGroups,
  getApproverGroup: approvers.getApproverGroup,
  putApproverGroup: approvers.putApproverGroup,
  deleteApproverGroup: approvers.deleteApproverGroup,
  openAnswerLink: approvals.openAnswerLink,
  delegateByLink: approvals.delegateByLink,
  receiveInboundReply: approvals.receiveInboundReply,
  fireWebhookTrigger: triggers.fireWebhookTrigger,
  runWorkflow: triggers.runWorkflow,
  getRun: triggers.getRun,
  listToolServers: tools.listToolServers,
  putMcpServer: tools.putMcpServer,
  getMcpServer: tools.getMcpServer,
  deleteMcpServer: tools.deleteMcpServer,
  connectMcpServer: tools.connectMcpServer,
  disconnectMcpServer: tools.disconnectMcpServer,
  getMcpClientDocument: tools.getMcpClientDocument,
  finishMcpSignIn: tools.finishMcpSignIn,
  finishMcpSignInByButton: tools.finishMcpSignInByButton,
  listSchemas: meta.listSchemas,
  getBundleSchema: meta.getBundleSchema,
  getOpenApi: meta.getOpenApi,
  getUsage: usage.getUsage,
  getLimits: limits.getLimits,
  setAgentBudget: budgets.setAgentBudget,
  setUserBudget: budgets.setUserBudget,
  decodePayloads: codec.decodePayloads,
  encodePayloads: codec.encodePayloads,
} as const satisfies Record<string, Operation>;

export type OperationId = keyof typeof OPERATIONS;

export * from './operation.ts';
export * from './shared.ts';
export * from './turn-answers.ts';
export * from './agents.ts';
export * from './revisions.ts';
export * from './evals.ts';
export * from './approvals.ts';
export * from './approvers.ts';
export * from './commands.ts';
export * from './device.ts';
export * from './health.ts';
export * from './usage.ts';
export * from './keys.ts';
export * from './media.ts';
export * from './meta.ts';
export * from './secrets.ts';
export * from './session-events.ts';
export * from './session-history.ts';
export * from './sessions.ts';
export * from './triggers.ts';
export * from './tools.ts';
export * from './webhooks.ts';
