// A route is an operation of the contract (contract/operations/: method, path, auth, the JSON Schemas
// of body, query and responses) with a handler attached. The same operation mounts the route
// (authenticate, rate limit, validate) and describes it in the OpenAPI document, so the published
// description cannot drift from what runs; the handler's body and query types come from its schemas.
import type { Request, Response, Router } from 'express';
import type { Principal } from '../store/api-keys.ts';
import type { AuthRequirement, Authenticator } from './middleware/auth.ts';
import type { RateLimiter } from './middleware/rate-limit.ts';
import type { StreamLimiter } from './streaming/stream-limiter.ts';
import { ajv, queryAjv, validator, type JsonSchema } from './validation.ts';
import { UnauthorizedError, UnsupportedMediaTypeError } from '../lib/workflow-safe/errors.ts';
import { assertStorableText } from '../lib/storable-text.ts';
import type { Operation, Received, Schema } from '../contract/operations/operation.ts';

/** What a handler may return; `undefined` means it wrote the response itself (e.g. SSE). */
export interface Reply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface HandlerInput<B, Q> {
  req: Request;
  res: Response;
  body: B;
  query: Q;
  params: Record<string, string>;
  principal: Principal | undefined;
}

// Read from O's own members: `O['body']` of an operation without one would be the constraint's (any schema).
type BodyIn<O extends Operation> = O extends { body: { schema: infer S } } ? Received<S> : undefined;
type QueryIn<O extends Operation> = O extends { query: infer Q } ? Received<Q> : Record<string, never>;

export interface RouteHandler<B, Q> {
  handle(input: HandlerInput<B, Q>): Promise<Reply | undefined> | Reply | undefined;
  /**
   * Whether this request holds its connection open (an SSE stream, a send that waits for its turn, a
   * read with ?wait=), given its parsed query. Such a request counts against its user's
   * OPEN_STREAMS_PER_USER until it closes, checked before the handler runs, so a refused send starts nothing.
   */
  holdsConnection?: (req: Request, query: Record<string, unknown>) => boolean;
  /**
   * The `WWW-Authenticate` challenge of this route's 401 (an agent's MCP URL names its OAuth metadata
   * there, RFC 9728), given whether the request sent a credential at all.
   */
  challenge?: (req: Request, sentCredential: boolean) => string;
  /** For an operation with a keyless form (`auth.keyless`): whether this request is that form. */
  publicWhen?: (req: Request) => boolean;
  /**
   * The handler reads and checks the body itself (the deploy route parses JSONC text, a trigger takes
   * any bytes); the operation's body schema then only describes it.
   */
  bodyCheckedByHandler?: boolean;
  /**
   * Maxima this deployment configures (APPROVAL_MAX_EXPIRY_MS, say), by property of the body or
   * query: validated as the schema's `maximum`. The document is the same for every deployment, so its
   * schema names the setting in words instead.
   */
  maxima?: { body?: Record<string, number>; query?: Record<string, number> };
}

export interface RouteDef {
  operation: Operation;
  /** Express path syntax, e.g. '/key/:id'. */
  expressPath: string;
  auth: AuthRequirement;
  handler: RouteHandler<unknown, Record<string, unknown>>;
}

/** '/key/{id}' -> '/key/:id' */
export function toExpressPath(openApiPath: string): string {
  return openApiPath.replace(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g, ':$1');
}

/** '/key/:id' -> '/key/{id}' */
export function toOpenApiPath(expressPath: string): string {
  return expressPath.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, '{$1}');
}

function authRequirement(operation: Operation, handler: RouteHandler<unknown, Record<string, unknown>>): AuthRequirement {
  const { auth } = operation;
  if (auth.kind !== 'scope') return auth;
  if (auth.keyless && !handler.publicWhen) throw new Error(`${operation.id} has a keyless form: its route needs publicWhen`);
  return { kind: 'scope', scope: auth.scope, ...(handler.publicWhen ? { publicWhen: handler.publicWhen } : {}) };
}

/** Attaches a handler to an operation; the handler sees the body and query as the schemas describe them. */
export function defineRoute<const O extends Operation>(operation: O, handler: NoInfer<RouteHandler<BodyIn<O>, QueryIn<O>>>): RouteDef {
  const untyped = handler as unknown as RouteHandler<unknown, Record<string, unknown>>;
  return { operation, expressPath: toExpressPath(operation.path), auth: authRequirement(operation, untyped), handler: untyped };
}

/** The schema with `maximum` set on the named properties. */
function withMaxima(schema: Schema, maxima: Record<string, number> | undefined): JsonSchema {
  const object = schema as JsonSchema & { properties?: Record<string, JsonSchema> };
  if (!maxima) return object;
  const properties = { ...object.properties };
  for (const [name, maximum] of Object.entries(maxima)) {
    if (!properties[name]) throw new Error(`No property "${name}" to bound`);
    properties[name] = { ...properties[name], maximum };
  }
  return { ...object, properties };
}

export interface MountOptions {
  auth: Authenticator;
  limiter: RateLimiter;
  streams: StreamLimiter;
}

export function mountRoutes(router: Router, routes: RouteDef[], options: MountOptions): void {
  for (const { operation, expressPath, auth, handler } of routes) {
    const checkBody = operation.body
      ? handler.bodyCheckedByHandler
        ? (value: unknown) => value
        : validator<unknown>(ajv.compile(withMaxima(operation.body.schema, handler.maxima?.body)), 'request body')
      : undefined;
    const checkQuery = operation.query
      ? validator<Record<string, unknown>>(queryAjv.compile(withMaxima(operation.query, handler.maxima?.query)), 'query')
      : undefined;
    const contentTypes = [...(operation.body?.contentTypes ?? ['application/json'])];
    const checkHeaders = Object.entries(operation.headers ?? {}).map(([name, spec]) => ({
      name,
      check: validator<string>(ajv.compile(spec.schema as JsonSchema), `${name} header`),
    }));

    router[operation.method](expressPath, async (req: Request, res: Response) => {
      const principal = await options.auth.require(req, auth).catch((error: unknown) => {
        if (error instanceof UnauthorizedError && handler.challenge) {
          res.set('www-authenticate', handler.challenge(req, req.get('authorization') !== undefined));
        }
        throw error;
      });
      req.principal = principal;
      // Per user, not per key: a user minting keys gets no more (docs/isolation.md).
      await options.limiter.consume(principal ? `user:${principal.userId}` : `ip:${req.ip ?? 'unknown'}`);
      let body: unknown = undefined;
      if (checkBody) {
        const hasBody = Number(req.get('content-length') ?? 0) > 0 || req.get('transfer-encoding') !== undefined;
        if (hasBody && !contentTypes.includes('*/*') && !req.is(contentTypes)) {
          throw new UnsupportedMediaTypeError(`Send the body as ${contentTypes.join(' or ')}`);
        }
        body = checkBody(hasBody ? req.body : operation.body?.required ? undefined : {});
        // Parsed JSON and forms (raw and text bodies are their routes' own business): text PostgreSQL
        // cannot store is refused here, for every route, rather than failing the writes it would reach.
        if (hasBody && typeof req.body === 'object' && req.body !== null && !Buffer.isBuffer(req.body)) {
          assertStorableText(req.body, 'request body');
        }
      }
      for (const { name, check } of checkHeaders) {
        const value = req.get(name);
        if (value !== undefined) check(value);
      }
      // Express 5 exposes req.query as a getter; copy it so defaults can be applied.
      const query = checkQuery ? checkQuery({ ...(req.query as Record<string, unknown>) }) : {};
      if (principal && handler.holdsConnection?.(req, query)) options.streams.hold(principal.userId, res);
      const reply = await handler.handle({ req, res, body, query, params: req.params as Record<string, string>, principal });
      if (!reply) return;
      if (reply.headers) res.set(reply.headers);
      if (reply.body === undefined) res.status(reply.status).end();
      else res.status(reply.status).json(reply.body);
    });
  }
}
