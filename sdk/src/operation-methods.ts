// Which SDK method calls each operation of the API (contract/operations, by operationId). The type
// makes a new operation without an entry a compile error; test/sdk/operation-coverage.test.ts checks
// each method exists on a Client and that the committed openapi.json lists no other operation.
import type { OperationId } from '../../contract/operations/index.ts';

/** A method path on a Client (`sessions.send`), or why the SDK leaves the operation out. */
export type OperationMethod = string | { excluded: string };

export const OPERATION_METHODS = {
  getHealth: 'health.retrieve',
  getLiveness: 'health.live',
  getReadiness: 'health.ready',
  listKeys: 'keys.list',
  createKey: 'keys.create',
  deleteKey: 'keys.delete',
  createUser: 'admin.users.create',
  requestDeviceCode: 'device.requestCode',
  pollDeviceToken: 'device.pollToken',
  getDeviceAuthorization: 'device.get',
  approveDeviceAuthorization: 'device.approve',
  denyDeviceAuthorization: 'device.deny',
  deployAgent: 'agents.deploy',
  listAgents: 'agents.list',
  getAgent: 'agents.retrieve',
  listRevisions: 'agents.revisions',
  getRevision: 'agents.revision',
  deleteAgent: 'agents.delete',
  listSecrets: 'secrets.list',
  putSecret: 'secrets.put',
  deleteSecret: 'secrets.delete',
  createSession: 'sessions.create',
  listSessions: 'sessions.list',
  getSession: 'sessions.retrieve',
  sendMessage: 'sessions.send',
  abortSession: 'sessions.abort',
  submitToolResult: 'toolResults.submit',
  listSessionEvents: 'events',
  forkSession: 'sessions.fork',
  revertSession: 'sessions.revert',
  regenerateReply: 'sessions.regenerate',
  uploadMedia: 'sessions.upload',
  downloadMedia: 'sessions.downloadMedia',
  createWebhook: 'webhooks.create',
  listWebhooks: 'webhooks.list',
  deleteWebhook: 'webhooks.delete',
  listDeliveries: 'webhooks.deliveries.list',
  createApproval: 'approvals.create',
  listApprovals: 'approvals.list',
  getApproval: 'approvals.retrieve',
  answerApproval: 'approvals.answer',
  openAnswerLink: {
    excluded: 'the signed answer link is for a person in a browser or a mail; scripts answer with approvals.answer and a key',
  },
  receiveInboundReply: {
    excluded: 'called by Slack, Telegram, a mail service or a channel receiver, each signing in its own way, never by a client',
  },
  fireWebhookTrigger: {
    excluded: 'a trigger URL is the secret itself and is called by third parties (CI, GitHub); a client starts work with runs.start',
  },
  runWorkflow: 'runs.start',
  getRun: 'runs.retrieve',
  listToolServers: 'toolServers.list',
  listSchemas: 'meta.schemas',
  getBundleSchema: 'meta.bundleSchema',
  getOpenApi: 'meta.openapi',
  decodePayloads: { excluded: "an operator's endpoint for the Temporal Web UI and CLI (remote codec protocol), not an application call" },
  encodePayloads: { excluded: "an operator's endpoint for the Temporal Web UI and CLI (remote codec protocol), not an application call" },
  runCommand: 'agents.runCommand',
} as const satisfies Record<OperationId, OperationMethod>;
