// Administration: creating users. Only keys of an admin user may call these.
import { defineRoute } from '../route.ts';
import type { ApiDeps } from '../context.ts';
import { createUser } from '../../store/users.ts';
import { insertKey } from '../../store/api-keys.ts';
import { inTransaction } from '../../store/db.ts';
import { SCOPES } from '../../lib/scopes.ts';

export function adminRoutes(deps: ApiDeps) {
  return [
    defineRoute<{ name: string }>({
      method: 'post',
      path: '/admin/users',
      summary: 'Create a user with a first API key (admin only)',
      description: 'The key has every scope and is shown only in this response.',
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
          const { key: apiKey } = await insertKey(client, { userId: created.id, name: 'first key', scopes: SCOPES });
          return { user: created, key: apiKey };
        });
        return { status: 201, body: { id: user.id, name: user.name, apiKey: key } };
      },
    }),
  ];
}
