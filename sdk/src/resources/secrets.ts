import type { SecretInfo, SecretList } from '../contract.ts';
import { path, type RequestOptions } from '../transport.ts';
import { Resource } from './resource.ts';

export class Secrets extends Resource {
  /** Names and dates of the caller's secrets; never a value. */
  list(options?: RequestOptions): Promise<SecretList> {
    return this.transport.json({ method: 'GET', path: '/secret', idempotent: true }, options);
  }

  /** Stores (or replaces) a secret; agents read it when their bundle grants it. */
  put(key: string, value: string, options?: RequestOptions): Promise<SecretInfo> {
    return this.transport.json({ method: 'PUT', path: path`/secret/${key}`, json: { value }, idempotent: true }, options);
  }

  delete(key: string, options?: RequestOptions): Promise<void> {
    return this.transport.json({ method: 'DELETE', path: path`/secret/${key}`, idempotent: true }, options);
  }
}
