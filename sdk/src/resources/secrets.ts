import type { SecretInfo, SecretList } from '../contract.ts';
import { path, type RequestOptions } from '../transport.ts';
import { Resource } from './resource.ts';

export class Secrets extends Resource {
  /** Names and dates of the caller's secrets; never a value. */
  list(options?: RequestOptions): Promise<SecretList> {
    return this.transport.json({ method: 'GET', path: '/secret', idempotent: true }, options);
  }

  /**
   * Stores (or replaces) a secret; agents read it when their bundle grants it. `hosts` names where it
   * may be sent in a tool's request headers (`api.github.com`, `*.example.com`); left out, a new
   * secret gets none (usable by providers and channels, not in tool headers) and a replaced one keeps its own.
   */
  put(key: string, value: string, options?: RequestOptions & { hosts?: string[] }): Promise<SecretInfo> {
    const { hosts, ...request } = options ?? {};
    return this.transport.json(
      { method: 'PUT', path: path`/secret/${key}`, json: { value, ...(hosts ? { hosts } : {}) }, idempotent: true },
      request,
    );
  }

  delete(key: string, options?: RequestOptions): Promise<void> {
    return this.transport.json({ method: 'DELETE', path: path`/secret/${key}`, idempotent: true }, options);
  }
}
