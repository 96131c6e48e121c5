import type { Health as HealthBody } from '../contract.ts';
import type { RequestOptions } from '../transport.ts';
import { Resource } from './resource.ts';

export class Health extends Resource {
  /** `GET /auth/health` (no key needed): PostgreSQL and Temporal answer. A 503 throws ServiceUnavailableError, its `body` has the checks. */
  retrieve(options?: RequestOptions): Promise<HealthBody> {
    return this.transport.json({ method: 'GET', path: '/auth/health', idempotent: true }, { maxRetries: 0, ...options });
  }
}
