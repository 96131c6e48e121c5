// The OpenAPI 3.1 document, built from the operations alone (a pure function: no server needed).
// Every status an operation answers is listed with its body: a 4xx/5xx without a schema of its own
// answers the Problem document, and the statuses any operation may answer (400 for a request that is
// not valid, 401/403 for keys, 413/415 for bodies, 429, 500, 503) are added where they apply.
import { PROBLEM_CONTENT_TYPE, PROBLEM_SCHEMA } from '../problems.ts';
import type { Operation, ResponseSpec, Schema } from '../operations/operation.ts';
import { EVENT_STREAM_SCHEMA } from '../operations/turn-answers.ts';
import { bundleComponents } from './bundle-components.ts';

export interface OpenApiInfo {
  version: string;
  /** The `servers` entry: the service's public base URL, when known. */
  serverUrl?: string;
}

export type OpenApiDocument = Record<string, unknown> & {
  paths: Record<string, Record<string, OpenApiOperation>>;
  components: { schemas: Record<string, unknown>; securitySchemes: Record<string, unknown> };
};

export interface OpenApiOperation {
  operationId: string;
  responses: Record<string, { description: string; content?: Record<string, { schema: unknown }>; headers?: unknown }>;
  [member: string]: unknown;
}

const JSON_TYPE = 'application/json';
const PROBLEM_REF = { $ref: '#/components/schemas/Problem' };
const RETRY_AFTER = { 'Retry-After': { description: 'Seconds to wait before retrying', schema: { type: 'integer' } } };

/**
 * OpenAPI reads a `discriminator` only beside a `oneOf` of references. The operations keep one beside
 * inline branches too (the server's ajv uses it to name the branch at fault); the document drops it,
 * as the branches' `const` types already tell a generator the values.
 */
function forDocument(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(forDocument);
  if (typeof schema !== 'object' || schema === null) return schema;
  const inline = Array.isArray((schema as { oneOf?: unknown }).oneOf) && !(schema as { oneOf: unknown[] }).oneOf.some(isReference);
  return Object.fromEntries(
    Object.entries(schema)
      .filter(([key]) => !(key === 'discriminator' && inline))
      .map(([key, value]) => [key, forDocument(value)]),
  );
}

function isReference(value: unknown): boolean {
  return typeof value === 'object' && value !== null && '$ref' in value;
}

function response(status: number, spec: ResponseSpec, streams: boolean): OpenApiOperation['responses'][string] {
  const content: Record<string, { schema: unknown }> = {};
  if (spec.schema !== undefined) content[spec.contentType ?? (status >= 400 ? PROBLEM_CONTENT_TYPE : JSON_TYPE)] = { schema: spec.schema };
  else if (status >= 400) content[PROBLEM_CONTENT_TYPE] = { schema: PROBLEM_REF };
  for (const [type, schema] of Object.entries(spec.also ?? {})) content[type] = { schema };
  if (streams && status === 200) content['text/event-stream'] = { schema: EVENT_STREAM_SCHEMA };
  return {
    description: spec.description,
    ...(Object.keys(content).length > 0 ? { content } : {}),
    ...(status === 429 || status === 503 ? { headers: RETRY_AFTER } : {}),
  };
}

/** What every operation of its kind may answer besides its own statuses. */
function implied(operation: Operation): Record<number, ResponseSpec> {
  const implied: Record<number, ResponseSpec> = {};
  if (operation.body || operation.query || operation.headers) {
    // Every parsed body is also checked for text PostgreSQL cannot store (api/route.ts).
    implied[400] = {
      description: operation.body
        ? 'The request is not valid (`errors` points at each problem; a string holding NUL or an unpaired surrogate is one)'
        : 'The request is not valid',
    };
  }
  if (operation.auth.kind !== 'public') {
    implied[401] = { description: 'Missing or invalid API key' };
    implied[403] = { description: 'The key lacks the scope or role this operation needs' };
  }
  if (operation.body) {
    implied[413] = { description: 'The request body is too large' };
    implied[415] = { description: `Send the body as ${(operation.body.contentTypes ?? [JSON_TYPE]).join(' or ')}` };
  }
  implied[429] = {
    description: operation.streams
      ? 'Rate limited (`rate-limited`: RATE_LIMIT_POINTS per user), or (`stream-limit`, for an answer held open) the user already holds ' +
        'OPEN_STREAMS_PER_USER open streams and waiting requests; retry after the number of seconds in Retry-After'
      : 'Rate limited (`rate-limited`: RATE_LIMIT_POINTS per user, all its keys together); retry after the number of seconds in Retry-After',
  };
  implied[500] = { description: 'Server error; the body carries a trace id' };
  // PostgreSQL or Temporal down, or no worker answering: any operation may answer so, within its deadline.
  implied[503] = { description: 'A dependency did not answer in time; retry after the seconds in Retry-After' };
  return implied;
}

function parameters(operation: Operation): unknown[] {
  const pathParams = [...operation.path.matchAll(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g)].map((match) => ({
    name: match[1],
    in: 'path',
    required: true,
    schema: { type: 'string' },
  }));
  const query = operation.query as
    { properties?: Record<string, Schema & { description?: string }>; required?: readonly string[] } | undefined;
  const queryParams = Object.entries(query?.properties ?? {}).map(([name, schema]) => ({
    name,
    in: 'query',
    required: query?.required?.includes(name) ?? false,
    schema,
    ...(typeof schema === 'object' && typeof schema.description === 'string' ? { description: schema.description } : {}),
  }));
  const headerParams = Object.entries(operation.headers ?? {}).map(([name, spec]) => ({
    name,
    in: 'header',
    required: false,
    description: spec.description,
    schema: spec.schema,
  }));
  return [...pathParams, ...queryParams, ...headerParams];
}

function describe(operation: Operation): OpenApiOperation {
  const statuses = { ...implied(operation), ...operation.responses };
  const responses: OpenApiOperation['responses'] = {};
  for (const status of Object.keys(statuses)
    .map(Number)
    .sort((a, b) => a - b)) {
    responses[String(status)] = response(status, statuses[status]!, operation.streams ?? false);
  }
  const described: OpenApiOperation = {
    operationId: operation.id,
    summary: operation.summary,
    ...(operation.description ? { description: operation.description } : {}),
    tags: [operation.tag],
    parameters: parameters(operation),
    responses,
  };
  if (operation.auth.kind === 'public') described.security = [];
  else described['x-required-scope'] = operation.auth.kind === 'admin' ? 'admin' : operation.auth.scope;
  if (operation.auth.kind === 'scope' && operation.auth.keyless) {
    // Either way is allowed: with a key, or without one in the keyless form.
    described.security = [{}, { bearerAuth: [] }];
    described['x-keyless'] = operation.auth.keyless;
  }
  if (operation.body) {
    const { schema, required, contentTypes } = operation.body;
    described.requestBody = {
      required: required ?? false,
      content: Object.fromEntries((contentTypes ?? [JSON_TYPE]).map((type) => [type, { schema: forDocument(schema) }])),
    };
  }
  return described;
}

export function buildOpenApi(operations: readonly Operation[], info: OpenApiInfo): OpenApiDocument {
  const paths: OpenApiDocument['paths'] = {};
  for (const operation of operations) (paths[operation.path] ??= {})[operation.method] = describe(operation);
  return {
    openapi: '3.1.0',
    info: {
      title: 'Agent hosting service',
      version: info.version,
      description:
        'Deploy agents, talk to them in sessions streamed over SSE, and let them ask their humans durable questions. ' +
        'Errors are application/problem+json with a traceId; every response carries x-trace-id.',
    },
    ...(info.serverUrl ? { servers: [{ url: info.serverUrl }] } : {}),
    security: [{ bearerAuth: [] }],
    paths,
    components: {
      securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', description: 'An API key: sk_...' } },
      schemas: { Problem: PROBLEM_SCHEMA, ...bundleComponents() },
    },
  };
}
