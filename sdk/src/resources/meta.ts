import type { SchemaList } from '../contract.ts';
import type { RequestOptions } from '../transport.ts';
import { Resource } from './resource.ts';

/** The documents the service describes itself with (no key needed). */
export class Meta extends Resource {
  schemas(options?: RequestOptions): Promise<SchemaList> {
    return this.transport.json({ method: 'GET', path: '/schema', idempotent: true }, options);
  }

  /** The bundle's JSON Schema (what editors complete a bundle with). */
  bundleSchema(options?: RequestOptions): Promise<Record<string, unknown>> {
    return this.transport.json({ method: 'GET', path: '/schema/bundle.json', idempotent: true }, options);
  }

  /** The OpenAPI 3.1 document of the API. */
  openapi(options?: RequestOptions): Promise<Record<string, unknown>> {
    return this.transport.json({ method: 'GET', path: '/openapi.json', idempotent: true }, options);
  }
}
