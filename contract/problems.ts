// Every error the API answers is application/problem+json (RFC 9457) with one of these types. A
// client branches on `type` (or `status`); `detail` is for people, `traceId` names the request in
// the service's logs, `errors` points into the request body where a field is at fault.
import type { FromSchema } from 'json-schema-to-ts';

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

const BASE = 'https://agent-service.dev/problems/';

/** Each problem type: its status and title, the same on every answer of that type. */
export const PROBLEMS = {
  validation: { status: 400, title: 'The request is not valid' },
  'invalid-bundle': { status: 400, title: 'The bundle is not valid' },
  'malformed-body': { status: 400, title: 'The request body could not be parsed' },
  // A device login's poll that gives no key (yet); its `error` member says why (RFC 8628 §3.5).
  'device-grant': { status: 400, title: 'The device code gives no key' },
  unauthorized: { status: 401, title: 'Missing or invalid API key' },
  forbidden: { status: 403, title: 'The API key does not grant access' },
  'not-found': { status: 404, title: 'Not found' },
  conflict: { status: 409, title: 'The request conflicts with the current state' },
  gone: { status: 410, title: 'No longer available' },
  'payload-too-large': { status: 413, title: 'The request body is too large' },
  'unsupported-media-type': { status: 415, title: 'Unsupported content type' },
  'idempotency-key-reused': { status: 422, title: 'The Idempotency-Key was used for another request' },
  'rate-limited': { status: 429, title: 'Too many requests' },
  // Limits per user (docs/isolation.md): each its own type, so a client can tell which it hit.
  // 429 for what frees up with time (Retry-After says when), 403 for what frees up only when the user
  // removes something.
  'stream-limit': { status: 429, title: 'Too many open streams and waiting requests' },
  'queue-full': { status: 429, title: 'Too many sends waiting for their turns' },
  'key-limit': { status: 403, title: 'Too many API keys' },
  'schedule-limit': { status: 403, title: 'Too many cron schedules' },
  'approval-limit': { status: 403, title: 'Too many open approvals' },
  'storage-limit': { status: 403, title: 'Too many stored bytes' },
  'mcp-server-limit': { status: 403, title: 'Too many registered MCP servers' },
  'budget-spent': { status: 403, title: 'A monthly spend budget is spent' },
  'model-failed': { status: 502, title: 'The model provider gave no usable answer' },
  'mcp-unreachable': { status: 502, title: 'The remote MCP server could not be reached' },
  internal: { status: 500, title: 'Internal server error' },
  unavailable: { status: 503, title: 'A part of the service is unavailable' },
} as const;

export type ProblemName = keyof typeof PROBLEMS;

/** The `type` URI of a problem, e.g. `https://agent-service.dev/problems/not-found`. */
export function problemType(name: ProblemName): string {
  return `${BASE}${name}`;
}

export const FIELD_ERROR_SCHEMA = {
  type: 'object',
  description: 'A field at fault',
  additionalProperties: false,
  required: ['path', 'message'],
  properties: {
    path: { type: 'string', description: "JSON pointer into the request body (or bundle); '' for the whole document" },
    message: { type: 'string' },
  },
} as const;

/** The body of every error answer (`Problem` in the OpenAPI document). */
export const PROBLEM_SCHEMA = {
  type: 'object',
  required: ['type', 'title', 'status', 'traceId'],
  properties: {
    type: { type: 'string', format: 'uri' },
    title: { type: 'string' },
    status: { type: 'integer' },
    detail: { type: 'string' },
    traceId: { type: 'string' },
    errors: { type: 'array', items: FIELD_ERROR_SCHEMA },
  },
} as const;

export type FieldError = FromSchema<typeof FIELD_ERROR_SCHEMA>;
export type Problem = FromSchema<typeof PROBLEM_SCHEMA>;
