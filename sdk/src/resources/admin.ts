import type { CreateUserBody, CreatedUser } from '../contract.ts';
import type { RequestOptions } from '../transport.ts';
import { Resource } from './resource.ts';

class Users extends Resource {
  /** A new user and its first key (every scope but `admin`). Needs an admin key. */
  create(body: CreateUserBody, options?: RequestOptions): Promise<CreatedUser> {
    return this.transport.json({ method: 'POST', path: '/admin/users', json: body, idempotent: false }, options);
  }
}

export class Admin extends Resource {
  readonly users = new Users(this.transport);
}
