// Routes are declared as data: method, path, auth, the JSON Schemas of body, query and responses,
// and a handler. The same declaration mounts the route (authenticate, rate limit, validate) and
// describes it in /openapi.json, so the published description cannot drift from what runs.
import type { Request, Response, Router } from 'express';
import type { Principal } from '../store/api-keys.ts';
import type { AuthRequirement, Authenticator } from './middleware/auth.ts';
import type { RateLimiter } from './middleware/rate-limit.ts';
import type { StreamLimiter } from './streaming/stream-limiter.ts';
import { ajv, queryAjv, validator, type JsonSchema } from './validation.ts';
import { UnsupportedMediaTypeError } from '../lib/errors.ts';
import { assertStorableText } from '../lib/storable-text.ts';

export type Method = 'get' | 'post' | 'put' | 'delete' | 'patch';

export interface ResponseSpec {
  description: string;
  schema?: JsonSchema;
  /** Defaults to application/json. */
  contentType?: string;
}

/** What a handler may return; `undefined` means it wrote the response itself (e.g. SSE). */
export interface Reply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

/** Request headers a route reads, by name: validated when present, and published in /openapi.json. */
export type HeaderSpecs = Record<string, { description: string; schema: JsonSchema }>;

export interface HandlerInput<B, Q> {
  req: Request;
  res: Response;
  body: B;
  query: Q;
  params: Record<string, string>;
  principal: Principal | undefined;
}

export interface RouteDef<B = unknown, Q = Record<string, unknown>> {
  method: Method;
  /** Express path syntax, e.g. '/key/:id'. */
  path: string;
  summary: string;
  description?: string;
  tag: string;
  auth: AuthRequirement;
  /**
   * `documentOnly`: the handler validates the body itself (the deploy route parses JSONC text);
   * the schema then only describes it in /openapi.json.
   */
  body?: { schema: JsonSchema; required?: boolean; contentTypes?: string[]; documentOnly?: boolean };
  query?: JsonSchema;
  headers?: HeaderSpecs;
  /**
   * Whether this request will be answered with an SSE stream (given its parsed query). Such a request
   * counts against the key's SSE_STREAMS_PER_KEY until it closes, checked before the handler runs,
   * so a refused streamed send starts nothing.
   */
  opensStream?: (req: Request, query: Record<string, unknown>) => boolean;
  responses: Record<number, ResponseSpec>;
  handle(input: HandlerInput<B, Q>): Promise<Reply | undefined> | Reply | undefined;
}

/** Keeps B and Q inferred per route while collecting routes in one array. */
export function defineRoute<B = unknown, Q = Record<string, unknown>>(route: RouteDef<B, Q>): RouteDef {
  return route as unknown as RouteDef;
}

export interface MountOptions {
  auth: Authenticator;
  limiter: RateLimiter;
  streams: StreamLimiter;
}

export function mountRoutes(router: Router, routes: RouteDef[], options: MountOptions): void {
  for (const route of routes) {
    const checkBody = route.body
      ? route.body.documentOnly
        ? (value: unknown) => value
        : validator<unknown>(ajv.compile(route.body.schema), 'request body')
      : undefined;
    const checkQuery = route.query ? validator<Record<string, unknown>>(queryAjv.compile(route.query), 'query') : undefined;
    const contentTypes = route.body?.contentTypes ?? ['application/json'];
    const checkHeaders = Object.entries(route.headers ?? {}).map(([name, spec]) => ({
      name,
      check: validator<string>(ajv.compile(spec.schema), `${name} header`),
    }));

    router[route.method](route.path, async (req: Request, res: Response) => {
      const principal = await options.auth.require(req, route.auth);
      req.principal = principal;
      await options.limiter.consume(principal ? `key:${principal.keyId}` : `ip:${req.ip ?? 'unknown'}`);
      let body: unknown = undefined;
      if (checkBody) {
        const hasBody = Number(req.get('content-length') ?? 0) > 0 || req.get('transfer-encoding') !== undefined;
        if (hasBody && !contentTypes.includes('*/*') && !req.is(contentTypes)) {
          throw new UnsupportedMediaTypeError(`Send the body as ${contentTypes.join(' or ')}`);
        }
        body = checkBody(hasBody ? req.body : route.body?.required ? undefined : {});
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
      if (principal && route.opensStream?.(req, query)) options.streams.hold(principal.keyId, res);
      const reply = await route.handle({ req, res, body, query, params: req.params as Record<string, string>, principal });
      if (!reply) return;
      if (reply.headers) res.set(reply.headers);
      if (reply.body === undefined) res.status(reply.status).end();
      else res.status(reply.status).json(reply.body);
    });
  }
}
