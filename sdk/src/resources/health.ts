import type { Health as HealthBody, Readiness } from '../contract.ts';
import type { RequestOptions } from '../transport.ts';
import { ServiceUnavailableError } from '../errors.ts';
import { Resource } from './resource.ts';

export class Health extends Resource {
  /** `GET /auth/health` (no key needed): PostgreSQL and Temporal answer. A 503 throws ServiceUnavailableError, its `body` has the checks. */
  retrieve(options?: RequestOptions): Promise<HealthBody> {
    return this.transport.json({ method: 'GET', path: '/auth/health', idempotent: true }, { maxRetries: 0, ...options });
  }

  /** `GET /auth/health/live` (no key needed): the API process serves. */
  live(options?: RequestOptions): Promise<{ ok: true }> {
    return this.transport.json({ method: 'GET', path: '/auth/health/live', idempotent: true }, { maxRetries: 0, ...options });
  }

  /**
   * `GET /auth/health/ready` (no key needed): PostgreSQL, Temporal and workers polling. Not ready (503)
   * resolves too, with `ok: false`, the failing `checks` and what the API still `serving`.
   */
  async ready(options?: RequestOptions): Promise<Readiness> {
    try {
      return await this.transport.json({ method: 'GET', path: '/auth/health/ready', idempotent: true }, { maxRetries: 0, ...options });
    } catch (error) {
      if (error instanceof ServiceUnavailableError && isReadiness(error.body)) return error.body;
      throw error;
    }
  }
}

function isReadiness(body: unknown): body is Readiness {
  return typeof body === 'object' && body !== null && 'serving' in body && 'checks' in body;
}
