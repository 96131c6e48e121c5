import type { Budget, CreateUserBody, CreatedUser } from '../contract.ts';
import { path, type RequestOptions } from '../transport.ts';
import { Resource } from './resource.ts';

class Users extends Resource {
  /** A new user and its first key (every scope but `admin`). Needs an admin key. */
  create(body: CreateUserBody, options?: RequestOptions): Promise<CreatedUser> {
    return this.transport.json({ method: 'POST', path: '/admin/users', json: body, idempotent: false }, options);
  }

  /** Sets a user's spend budget in USD per UTC calendar month (null removes it), over all its agents. Needs an admin key. */
  setBudget(userId: string, monthlyUsd: number | null, options?: RequestOptions): Promise<Budget> {
    return this.transport.json(
      { method: 'PUT', path: path`/admin/users/${userId}/budget`, json: { monthlyUsd }, idempotent: true },
      options,
    );
  }
}

export class Admin extends Resource {
  readonly users = new Users(this.transport);
}
