// Builds the OpenAPI 3.1 document from the route declarations (api/route.ts). Every route that is
// mounted is described; a test walks the Express router to prove it.
import type { RouteDef } from './route.ts';
import type { JsonSchema } from './validation.ts';

export const PROBLEM_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['type', 'title', 'status', 'traceId'],
  properties: {
    type: { type: 'string', format: 'uri' },
    title: { type: 'string' },
    status: { type: 'integer' },
    detail: { type: 'string' },
    traceId: { type: 'string' },
    errors: {
      type: 'array',
      items: {
        type: 'object',
        required: ['path', 'message'],
        properties: { path: { type: 'string', description: 'JSON pointer' }, message: { type: 'string' } },
      },
    },
  },
};

const problem = (description: string) => ({
  description,
  content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
});

/** '/key/:id' -> '/key/{id}' */
export function toOpenApiPath(expressPath: string): string {
  return expressPath.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, '{$1}');
}

function parameters(route: RouteDef): unknown[] {
  const pathParams = [...route.path.matchAll(/:([A-Za-z_][A-Za-z0-9_]*)/g)].map((match) => ({
    name: match[1],
    in: 'path',
    required: true,
    schema: { type: 'string' },
  }));
  const query = route.query as { properties?: Record<string, JsonSchema>; required?: string[] } | undefined;
  const queryParams = Object.entries(query?.properties ?? {}).map(([name, schema]) => ({
    name,
    in: 'query',
    required: query?.required?.includes(name) ?? false,
    schema,
    ...(typeof schema.description === 'string' ? { description: schema.description } : {}),
  }));
  const headerParams = Object.entries(route.headers ?? {}).map(([name, spec]) => ({
    name,
    in: 'header',
    required: false,
    description: spec.description,
    schema: spec.schema,
  }));
  return [...pathParams, ...queryParams, ...headerParams];
}

function operation(route: RouteDef): Record<string, unknown> {
  const responses: Record<string, unknown> = {};
  for (const [status, spec] of Object.entries(route.responses)) {
    responses[status] = spec.schema
      ? { description: spec.description, content: { [spec.contentType ?? 'application/json']: { schema: spec.schema } } }
      : { description: spec.description };
  }
  if (route.body || route.query || route.headers) {
    // Every parsed body is also checked for text PostgreSQL cannot store (api/route.ts).
    responses['400'] ??= problem(
      route.body
        ? 'The request is not valid (`errors` points at each problem; a string holding NUL or an unpaired surrogate is one)'
        : 'The request is not valid',
    );
  }
  if (route.auth.kind !== 'public') {
    responses['401'] ??= problem('Missing or invalid API key');
    responses['403'] ??= problem('The key lacks the scope or role this operation needs');
  }
  responses['429'] ??= {
    ...problem(
      route.opensStream
        ? 'Rate limited, or (for an SSE answer) the key already holds SSE_STREAMS_PER_KEY open streams; retry after the number of seconds in Retry-After'
        : 'Rate limited; retry after the number of seconds in Retry-After',
    ),
    headers: { 'Retry-After': { schema: { type: 'integer' } } },
  };
  responses['500'] ??= problem('Server error; the body carries a trace id');
  // PostgreSQL or Temporal down, or no worker answering: any route may answer so, within its deadline.
  if (!route.responses[503]?.schema) {
    responses['503'] = {
      ...problem(route.responses[503]?.description ?? 'A dependency did not answer in time; retry after the seconds in Retry-After'),
      headers: { 'Retry-After': { schema: { type: 'integer' } } },
    };
  }

  const op: Record<string, unknown> = {
    operationId: `${route.method}${toOpenApiPath(route.path)
      .replace(/[{}]/g, '')
      .replace(/[^A-Za-z0-9]+(.)?/g, (_, c: string | undefined) => (c ? c.toUpperCase() : ''))}`,
    summary: route.summary,
    tags: [route.tag],
    parameters: parameters(route),
    responses,
  };
  if (route.description) op.description = route.description;
  if (route.auth.kind === 'public') op.security = [];
  else op['x-required-scope'] = route.auth.kind === 'admin' ? 'admin' : route.auth.scope;
  // A path with a keyless form too (a signed token instead of an id): either way is allowed.
  if (route.auth.kind === 'scope' && route.auth.publicWhen) op.security = [{}, { bearerAuth: [] }];
  if (route.body) {
    op.requestBody = {
      required: route.body.required ?? false,
      content: Object.fromEntries((route.body.contentTypes ?? ['application/json']).map((type) => [type, { schema: route.body!.schema }])),
    };
  }
  return op;
}

export function buildOpenApi(routes: RouteDef[], info: { version: string; serverUrl?: string }): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const entry = (paths[toOpenApiPath(route.path)] ??= {});
    entry[route.method] = operation(route);
  }
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
      schemas: { Problem: PROBLEM_SCHEMA },
    },
  };
}
