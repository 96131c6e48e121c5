// Administration: creating users. Only keys of an admin user holding the `admin` scope may call these.
import { defineRoute } from '../route.ts';
import type { ApiDeps } from '../context.ts';
import { createUser } from '../../store/users.ts';
import { insertKey } from '../../store/api-keys.ts';
import { inTransaction } from '../../store/db.ts';
import { scopesFor } from '../../contract/scopes.ts';

export function adminRoutes(deps: ApiDeps) {
  return [
    defineRoute<{ name: string }>({
      method: 'post',
      path: '/admin/users',
      summary: 'Create a user with a first API key (admin only)',
      description:
        'Needs a key of an admin user with the `admin` scope. The new user is not an admin: its key has every scope ' +
        'but `admin`, and is shown only in this response.',
      tag: 'admin',
      auth: { kind: 'admin' },
      body: {
        required: true,
        schema: {
          type: 'object',
          additionalProperties: false,
          required: ['name'],
          properties: { name: { type: 'string', minLength: 1, maxLength: 100 } },
        },
      },
      responses: {
        201: {
          description: 'The user and its first key',
          schema: {
            type: 'object',
            required: ['id', 'name', 'apiKey'],
            properties: { id: { type: 'string' }, name: { type: 'string' }, apiKey: { type: 'string' } },
          },
        },
      },
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
