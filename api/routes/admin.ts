// Administration: creating users. Only keys of an admin user holding the `admin` scope may call these.
import { OPERATIONS } from '../../contract/operations/index.ts';
import { defineRoute } from '../route.ts';
import type { ApiDeps } from '../context.ts';
import { createUser } from '../../store/users.ts';
import { insertKey } from '../../store/api-keys.ts';
import { inTransaction } from '../../store/db.ts';
import { scopesFor } from '../../contract/scopes.ts';

export function adminRoutes(deps: ApiDeps) {
  return [
    defineRoute(OPERATIONS.createUser, {
      async handle({ body }) {
        const { user, key } = await inTransaction(deps.db, async (client) => {
          const created = await createUser(client, { name: body.name });
          const { key: apiKey } = await insertKey(client, { userId: created.id, name: 'first key', scopes: scopesFor(created) });
          return { user: created, key: apiKey };
        });
        return { status: 201, body: { id: user.id, name: user.name, apiKey: key } };
      },
    }),
  ];
}
