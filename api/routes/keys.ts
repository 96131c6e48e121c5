// API keys of the calling user. The key is returned only by POST; listings show a display prefix.
import { OPERATIONS } from '../../contract/operations/index.ts';
import { defineRoute } from '../route.ts';
import type { ApiDeps } from '../context.ts';
import { deleteKey, insertKey, listKeys, type ApiKey } from '../../store/api-keys.ts';
import { ForbiddenError, NotFoundError } from '../../lib/errors.ts';
import { scopesFor } from '../../contract/scopes.ts';

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
        const allowed = scopesFor(caller);
        if (body.scopes?.includes('admin') && !allowed.includes('admin'))
          throw new ForbiddenError('Only keys of an admin user may hold the "admin" scope');
        const scopes = (body.scopes ?? caller.scopes).filter((scope) => allowed.includes(scope));
        const beyond = scopes.filter((scope) => !caller.scopes.includes(scope));
        if (beyond.length) throw new ForbiddenError(`The calling key cannot grant scopes it lacks: ${beyond.join(', ')}`);
        const { apiKey, key } = await insertKey(deps.db, { userId: caller.userId, name: body.name ?? 'unnamed', scopes });
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
