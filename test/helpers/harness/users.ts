// Test users: each test makes its own, so tests never see each other's resources.
import { randomUUID } from 'node:crypto';
import type { Db } from '../../../store/db.ts';
import { createUser } from '../../../store/users.ts';
import { insertKey } from '../../../store/api-keys.ts';
import { scopesFor, type Scope } from '../../../contract/scopes.ts';

export interface TestUser {
  userId: string;
  apiKey: string;
  /** The key's id: what records of the changes a key made name. */
  keyId: string;
  /** Headers with this user's bearer key. */
  auth: { authorization: string };
}

export async function createTestUser(db: Db, options: { admin?: boolean; scopes?: Scope[]; name?: string } = {}): Promise<TestUser> {
  const user = await createUser(db, { name: options.name ?? `test-${randomUUID().slice(0, 8)}`, isAdmin: options.admin ?? false });
  const { key, apiKey } = await insertKey(db, { userId: user.id, name: 'test', scopes: options.scopes ?? scopesFor(user) });
  return { userId: user.id, apiKey: key, keyId: apiKey.id, auth: { authorization: `Bearer ${key}` } };
}
