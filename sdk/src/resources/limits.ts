import type { Limits as LimitsBody } from '../contract.ts';
import type { RequestOptions } from '../transport.ts';
import { Resource } from './resource.ts';

/** Your limits per user and what you hold against each (`GET /limits`). */
export class Limits extends Resource {
  retrieve(options?: RequestOptions): Promise<LimitsBody> {
    return this.transport.json({ method: 'GET', path: '/limits', idempotent: true }, options);
  }
}
