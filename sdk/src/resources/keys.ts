import type { CreateKeyBody, CreatedKey, KeyList } from '../contract.ts';
import { path, type RequestOptions } from '../transport.ts';
import { Resource } from './resource.ts';

export class Keys extends Resource {
  /** A new key of the caller (shown once in the answer), with at most the caller's scopes. */
  create(body: CreateKeyBody = {}, options?: RequestOptions): Promise<CreatedKey> {
    return this.transport.json({ method: 'POST', path: '/key', json: body, idempotent: false }, options);
  }

  /** The caller's keys, by prefix: never a key itself. */
  list(options?: RequestOptions): Promise<KeyList> {
    return this.transport.json({ method: 'GET', path: '/key', idempotent: true }, options);
  }

  delete(id: string, options?: RequestOptions): Promise<void> {
    return this.transport.json({ method: 'DELETE', path: path`/key/${id}`, idempotent: true }, options);
  }
}
