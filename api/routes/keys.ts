// API keys of the calling user. The key is returned only by POST; listings show a display prefix.
import { OPERATIONS } from '../../contract/operations/index.ts';
import { defineRoute } from '../route.ts';
import type { ApiDeps } from '../context.ts';
import { countKeysLocked, deleteKey, insertKey, listKeys, type ApiKey } from '../../store/api-keys.ts';
import { inTransaction } from '../../store/db.ts';
import { refusePastKeyLimit } from '../user-limits.ts';
import { NotFoundError } from '../../lib/workflow-safe/errors.ts';
import { scopesToGrant } from '../key-scopes.ts';

function listing(key: ApiKey) {
  return { id: key.id, name: key.name, prefix: key.prefix, scopes: key.scopes, createdAt: key.createdAt, lastUsedAt: key.lastUsedAt };
}

export function keyRoutes(deps: ApiDeps) {
  return [
    defineRoute(OPERATIONS.listKeys, {
      async handle({ principal }) {
        const keys = await listKeys(deps.db, principal!.userId);
        return { status: 200, body: { keys: keys.map(listing) } };
      },
    }),
    defineRoute(OPERATIONS.createKey, {
      async handle({ body, principal }) {
        const caller = principal!;
        const scopes = scopesToGrant(caller, body.scopes);
        const { apiKey, key } = await inTransaction(deps.db, async (client) => {
          refusePastKeyLimit(await countKeysLocked(client, caller.userId), deps.config.limits.keysPerUser);
          return insertKey(client, { userId: caller.userId, name: body.name ?? 'unnamed', scopes });
        });
        return { status: 201, body: { id: apiKey.id, key, name: apiKey.name, scopes: apiKey.scopes, createdAt: apiKey.createdAt } };
      },
    }),
    defineRoute(OPERATIONS.deleteKey, {
      async handle({ params, principal }) {
        if (!(await deleteKey(deps.db, principal!.userId, params.id!))) throw new NotFoundError('You have no API key with this id');
        return { status: 204 };
      },
    }),
  ];
}
