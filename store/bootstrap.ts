// The first admin. With ADMIN_API_KEY set, that key belongs to the admin user (created if needed).
// Without it, the very first start creates an admin user and returns its key so the caller can
// print it once; it is never shown again. A transaction-level advisory lock keeps two processes
// starting together from both creating one.
import type { Db } from './db.ts';
import { inTransaction } from './db.ts';
import { createUser, findFirstAdmin } from './users.ts';
import { insertKey, replaceEnvKey } from './api-keys.ts';
import { SCOPES } from '../contract/scopes.ts';

const BOOTSTRAP_LOCK_ID = 724_310_002;

export interface BootstrapResult {
  /** Set only when this call created the first admin and its key. */
  createdAdminKey?: string;
  adminUserId: string;
}

/**
 * `keep`: given a created key before the transaction commits; if it throws, nothing is created (so a
 * key that could not be kept is never the only one), and the next start tries again.
 */
export async function bootstrapAdmin(
  db: Db,
  adminApiKey: string | undefined,
  keep?: (createdAdminKey: string) => Promise<void>,
): Promise<BootstrapResult> {
  return inTransaction(db, async (client) => {
    await client.query('SELECT pg_advisory_xact_lock($1)', [BOOTSTRAP_LOCK_ID]);
    const existing = await findFirstAdmin(client);
    const admin = existing ?? (await createUser(client, { name: 'admin', isAdmin: true }));
    if (adminApiKey) {
      await replaceEnvKey(client, admin.id, adminApiKey, SCOPES);
      return { adminUserId: admin.id };
    }
    if (existing) return { adminUserId: admin.id };
    const { key } = await insertKey(client, { userId: admin.id, name: 'admin (first start)', scopes: SCOPES });
    await keep?.(key);
    return { adminUserId: admin.id, createdAdminKey: key };
  });
}
