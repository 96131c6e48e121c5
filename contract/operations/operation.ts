// One HTTP operation of the API as data: what a client may send and what it gets back. The server
// mounts each with a handler (api/route.ts), the OpenAPI document is built from them
// (contract/openapi/), and a client derives its request and response types from the same schemas.
import type { FromSchema, JSONSchema } from 'json-schema-to-ts';
import type { Scope } from '../scopes.ts';

export type Method = 'get' | 'post' | 'put' | 'delete' | 'patch';

/** A JSON Schema (draft 2020-12), written `as const` so types can be derived from it. */
export type Schema = JSONSchema;

/** Who may call an operation. */
export type Auth =
  | { readonly kind: 'public' }
  /**
   * An API key holding `scope`. `keyless`: the same path also has a keyless form (a signed token in
   * place of an id), described here in words; the server tells the two apart by the path.
   */
  | { readonly kind: 'scope'; readonly scope: Scope; readonly keyless?: string }
  /** A key of an admin user holding the `admin` scope. */
  | { readonly kind: 'admin' };

export interface ResponseSpec {
  readonly description: string;
  /**
   * The body's schema. Left out: a 4xx/5xx answers the Problem document (application/problem+json),
   * a 2xx has no body.
   */
  readonly schema?: Schema;
  /** The content type of `schema`. Default: application/json, or application/problem+json for a 4xx/5xx. */
  readonly contentType?: string;
  /** Other representations of the same answer by content type, e.g. the HTML page a browser gets. */
  readonly also?: Readonly<Record<string, Schema>>;
}

/** Request headers an operation reads, by name: validated when present. */
export type HeaderSpecs = Readonly<Record<string, { readonly description: string; readonly schema: Schema }>>;

export interface Operation {
  /** The stable name an SDK calls it by: `operationId` in the document. */
  readonly id: string;
  readonly method: Method;
  /** OpenAPI form: '/session/{id}'. */
  readonly path: string;
  readonly summary: string;
  readonly description?: string;
  readonly tag: string;
  readonly auth: Auth;
  readonly body?: { readonly schema: Schema; readonly required?: boolean; readonly contentTypes?: readonly string[] };
  readonly query?: Schema;
  readonly headers?: HeaderSpecs;
  /** The 200 answer may be an SSE stream (text/event-stream) instead of JSON, as the request asks. */
  readonly streams?: boolean;
  readonly responses: Readonly<Record<number, ResponseSpec>>;
}

/** Keeps the literal type of an operation (its schemas above all) while checking its shape. */
export function defineOperation<const O extends Operation>(operation: O): O {
  return operation;
}

/**
 * A reference to a component of the document (`#/components/schemas/Bundle`) names no schema
 * json-schema-to-ts can follow, so types are derived with each one read as "any value"; the named
 * types put the component's own type there (AgentDetail's `bundle` is a Bundle).
 */
type Unref<S> = S extends { readonly $ref: string } ? Record<never, never> : S;

/** References sit at the root, among `properties` or in an `anyOf` (the deploy answers); no deeper. */
type WithoutRefs<S> = S extends { readonly $ref: string }
  ? Record<never, never>
  : S extends { readonly properties: infer P }
    ? Omit<S, 'properties'> & { readonly properties: { readonly [K in keyof P]: Unref<P[K]> } }
    : S extends { readonly anyOf: infer A }
      ? Omit<S, 'anyOf'> & { readonly anyOf: { readonly [K in keyof A]: Unref<A[K]> } }
      : S;

/** The type a schema describes, as a client sends it: a property with a default may be left out. */
export type Sent<S> =
  WithoutRefs<S> extends infer T extends JSONSchema ? FromSchema<T, { keepDefaultedPropertiesOptional: true }> : unknown;

/** The type a schema describes once validated with defaults applied (what a handler receives). */
export type Received<S> = WithoutRefs<S> extends infer T extends JSONSchema ? FromSchema<T> : unknown;

export type BodyOf<O extends Operation> = O extends { body: { schema: infer S } } ? Sent<S> : undefined;
export type QueryOf<O extends Operation> = O extends { query: infer Q } ? Sent<Q> : Record<string, never>;

/** The JSON body of one answer of an operation, by status. */
export type ResponseOf<O extends Operation, Status extends keyof O['responses']> = O['responses'][Status] extends {
  schema: infer S;
}
  ? Received<S>
  : undefined;
