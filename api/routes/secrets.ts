// Secrets: write-only values. Responses, logs and errors carry names and dates, never a value.
import { defineRoute } from '../route.ts';
import type { ApiDeps } from '../context.ts';
import { deleteSecret, listSecrets, putSecret } from '../../store/secrets.ts';
import { NotFoundError, ValidationError } from '../../lib/errors.ts';
import { SECRET_KEY_PATTERN } from '../../contract/bundle-constants.ts';

/** Like an environment variable name, so `{{secrets.KEY}}` references read naturally. */
const MAX_SECRET_BYTES = 64 * 1024;

const secretInfo = {
  type: 'object',
  required: ['key', 'createdAt', 'updatedAt'],
  properties: {
    key: { type: 'string' },
    createdAt: { type: 'string', format: 'date-time' },
    updatedAt: { type: 'string', format: 'date-time' },
  },
};

function checkKey(key: string): string {
  if (!SECRET_KEY_PATTERN.test(key)) {
    throw new ValidationError(
      `Secret names are letters, digits and "_", not starting with a digit, at most 128 characters (${SECRET_KEY_PATTERN.source})`,
    );
  }
  return key;
}

export function secretRoutes(deps: ApiDeps) {
  return [
    defineRoute({
      method: 'get',
      path: '/secret',
      summary: 'List your secrets (names and dates, never values)',
      tag: 'secrets',
      auth: { kind: 'scope', scope: 'read' },
      responses: {
        200: {
          description: 'Your secrets by name',
          schema: { type: 'object', required: ['secrets'], properties: { secrets: { type: 'array', items: secretInfo } } },
        },
      },
      async handle({ principal }) {
        return { status: 200, body: { secrets: await listSecrets(deps.db, principal!.userId) } };
      },
    }),
    defineRoute<{ value: string }>({
      method: 'put',
      path: '/secret/:key',
      summary: 'Store or replace a secret',
      description: `Names match ${SECRET_KEY_PATTERN.source}; values are at most ${MAX_SECRET_BYTES} bytes, encrypted at rest (AES-256-GCM), and never returned.`,
      tag: 'secrets',
      auth: { kind: 'scope', scope: 'secrets:write' },
      body: {
        required: true,
        schema: {
          type: 'object',
          additionalProperties: false,
          required: ['value'],
          properties: { value: { type: 'string', minLength: 1 } },
        },
      },
      responses: { 200: { description: 'Replaced', schema: secretInfo }, 201: { description: 'Created', schema: secretInfo } },
      async handle({ params, body, principal }) {
        const key = checkKey(params.key!);
        if (Buffer.byteLength(body.value, 'utf8') > MAX_SECRET_BYTES) {
          throw new ValidationError(`A secret value is at most ${MAX_SECRET_BYTES} bytes`, [
            { path: '/value', message: `is longer than ${MAX_SECRET_BYTES} bytes` },
          ]);
        }
        const { created, ...stored } = await putSecret(deps.db, deps.masterKey, principal!.userId, key, body.value);
        return { status: created ? 201 : 200, body: stored };
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/secret/:key',
      summary: 'Delete a secret',
      tag: 'secrets',
      auth: { kind: 'scope', scope: 'secrets:write' },
      responses: { 204: { description: 'Deleted' }, 404: { description: 'You have no secret of that name' } },
      async handle({ params, principal }) {
        if (!(await deleteSecret(deps.db, principal!.userId, checkKey(params.key!))))
          throw new NotFoundError(`You have no secret named "${params.key}"`);
        return { status: 204 };
      },
    }),
  ];
}
