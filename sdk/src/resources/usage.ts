import type { Usage as UsageBody } from '../contract.ts';
import type { RequestOptions } from '../transport.ts';
import { Resource } from './resource.ts';

/** Tokens and USD cost of your agents: per agent in total, and per agent and UTC day (`GET /usage`). */
export class Usage extends Resource {
  retrieve(query: { days?: number } = {}, options?: RequestOptions): Promise<UsageBody> {
    return this.transport.json({ method: 'GET', path: '/usage', query: { days: query.days }, idempotent: true }, options);
  }
}
