// Firing an agent from outside: webhook trigger URLs (public: the URL is the secret) and runs of a
// workflow graph through the API, and where a run is.
import { defineOperation, type ResponseOf, type Sent } from './operation.ts';
import { IDEMPOTENCY_KEY_HEADER, IDEMPOTENCY_KEY_HEADERS, NULLABLE_STRING, NULLABLE_TIME, TIME } from './shared.ts';

/** Delivery ids that stay the same on a redelivery, in the order they are looked at, with their senders. */
export const DELIVERY_ID_HEADERS = {
  'webhook-id': 'Standard Webhooks (https://www.standardwebhooks.com)',
  'svix-id': 'Svix',
  'X-GitHub-Delivery': 'GitHub',
} as const;

const deliveryIdHeader = (sender: string) => ({
  description:
    `${sender} delivery id: the Idempotency-Key of the firing when that header is absent (the first of these present ` +
    'counts; ignored unless 1 to 255 printable ASCII characters).',
  schema: { type: 'string' } as const,
});

export const TRIGGER_IDEMPOTENCY_HEADERS = {
  'Idempotency-Key': {
    ...IDEMPOTENCY_KEY_HEADER,
    description:
      'Makes a retry safe: the same key on the same trigger URL within 24 h answers the first firing (the same 202, the same ' +
      'sessionId) and fires nothing else. Reusing it with another body is 422. At most 255 printable ASCII characters.',
  },
  'webhook-id': deliveryIdHeader(DELIVERY_ID_HEADERS['webhook-id']),
  'svix-id': deliveryIdHeader(DELIVERY_ID_HEADERS['svix-id']),
  'X-GitHub-Delivery': deliveryIdHeader(DELIVERY_ID_HEADERS['X-GitHub-Delivery']),
} as const;

export const RUN_BODY_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  properties: { input: { description: 'Text or JSON' } },
} as const;

export const RUN_SCHEMA = {
  type: 'object',
  required: ['id', 'status', 'sessionId', 'workflow', 'revision', 'outputs'],
  properties: {
    id: { type: 'string' },
    status: { enum: ['running', 'completed', 'failed'] },
    sessionId: { type: 'string' },
    agentId: { type: 'string' },
    workflow: { type: 'string' },
    revision: { type: 'integer' },
    currentNode: NULLABLE_STRING,
    input: NULLABLE_STRING,
    outputs: { type: 'object', description: 'By node id: {output} of agent nodes, {choice, note} or {expired} of approval nodes' },
    error: NULLABLE_STRING,
    createdAt: TIME,
    endedAt: NULLABLE_TIME,
  },
} as const;

export const fireWebhookTrigger = defineOperation({
  id: 'fireWebhookTrigger',
  method: 'post',
  path: '/trigger/{userId}/{agentId}/{suffix}',
  summary: 'Fire a webhook trigger: the body becomes the first user message of a fresh session',
  description:
    'Public: the URL is the secret (GET /agent/<name> lists it). Any text body (JSON is kept as its JSON text, ' +
    'malformed JSON with a JSON content type is 400, text with a NUL character is 400, bytes that are not UTF-8 are ' +
    '415); an empty body still fires. ' +
    'Answers 202 {sessionId, messageId} (with a trigger that names a workflow, {sessionId, runId}). ' +
    'A wrong user id, agent id or suffix is the same 404. Rate limited per trigger (TRIGGER_RATE_LIMIT_POINTS per ' +
    'window) and per address; bodies beyond TRIGGER_BODY_LIMIT_BYTES are 413. A firing is one unit: its session ' +
    'appears with its first message, or not at all. A 503 may or may not have fired (the start was not confirmed in ' +
    'time): retry with the same Idempotency-Key, scoped to this trigger URL, and the retry answers the first ' +
    "firing's 202 (same sessionId) rather than fire again. Without that header, a sender's delivery id (webhook-id, " +
    'svix-id, X-GitHub-Delivery) is the key, so their redeliveries fire once. The same key with another body is 422.',
  tag: 'triggers',
  auth: { kind: 'public' },
  body: { contentTypes: ['*/*'], schema: { description: 'Any text' } },
  headers: TRIGGER_IDEMPOTENCY_HEADERS,
  responses: {
    202: {
      description: 'Fired; the session works on it',
      schema: {
        type: 'object',
        required: ['sessionId'],
        properties: { sessionId: { type: 'string' }, messageId: { type: 'string' }, runId: { type: 'string' } },
      },
    },
    400: { description: 'Malformed JSON with a JSON content type, or text with a NUL character' },
    404: { description: 'No trigger at this address' },
    413: { description: 'The body is too large' },
    415: { description: 'The body is not text' },
    422: { description: 'The Idempotency-Key (or delivery id) was used on this trigger for another body' },
    503: { description: 'Not confirmed in time: it may or may not have fired; retry with the same Idempotency-Key' },
  },
});

export const runWorkflow = defineOperation({
  id: 'runWorkflow',
  method: 'post',
  path: '/agent/{name}/workflow/{workflow}',
  summary: 'Run a workflow graph of the agent in a fresh session',
  description:
    "Runs the graph of the agent's current revision (the run keeps following that revision). `input` (a string, or " +
    'any JSON, which is passed on as its JSON text) is what prompts reach as {{input}}. Answers 202 {sessionId, runId}; ' +
    "the run's events (workflow.started, workflow.node, the turns, approvals, workflow.completed or workflow.failed) " +
    'go to that session, and GET /run/<runId> shows where it is. A 503 may or may not have started it: retry with the ' +
    'same Idempotency-Key, and the retry answers the same run rather than start another.',
  tag: 'triggers',
  auth: { kind: 'scope', scope: 'sessions:write' },
  body: { schema: RUN_BODY_SCHEMA },
  headers: IDEMPOTENCY_KEY_HEADERS,
  responses: {
    202: {
      description: 'Started',
      schema: {
        type: 'object',
        required: ['sessionId', 'runId'],
        properties: { sessionId: { type: 'string' }, runId: { type: 'string' } },
      },
    },
    404: { description: 'No such agent or workflow' },
    422: { description: 'The Idempotency-Key was used for a different request' },
  },
});

export const getRun = defineOperation({
  id: 'getRun',
  method: 'get',
  path: '/run/{id}',
  summary: 'A run of a workflow graph: its status, the node it is at, and what each node gave',
  tag: 'triggers',
  auth: { kind: 'scope', scope: 'read' },
  responses: {
    200: { description: 'The run', schema: RUN_SCHEMA },
    403: { description: "Another user's run" },
    404: { description: 'No such run' },
  },
});

export type RunBody = Sent<typeof RUN_BODY_SCHEMA>;
export type Fired = ResponseOf<typeof fireWebhookTrigger, 202>;
export type RunStarted = ResponseOf<typeof runWorkflow, 202>;
export type RunView = Sent<typeof RUN_SCHEMA>;
