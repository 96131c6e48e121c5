// Secrets: write-only values. Responses, logs and errors carry names and dates, never a value.
import { OPERATIONS } from '../../contract/operations/index.ts';
import { defineRoute } from '../route.ts';
import type { ApiDeps } from '../context.ts';
import { deleteSecret, listSecrets, putSecret } from '../../store/secrets.ts';
import { NotFoundError, ValidationError } from '../../lib/workflow-safe/errors.ts';
import { SECRET_KEY_PATTERN } from '../../contract/bundle-constants.ts';

import { MAX_SECRET_BYTES } from '../../contract/operations/secrets.ts';

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
    defineRoute(OPERATIONS.listSecrets, {
      async handle({ principal }) {
        return { status: 200, body: { secrets: await listSecrets(deps.db, principal!.userId) } };
      },
    }),
    defineRoute(OPERATIONS.putSecret, {
      async handle({ params, body, principal }) {
        const key = checkKey(params.key!);
        if (Buffer.byteLength(body.value, 'utf8') > MAX_SECRET_BYTES) {
          throw new ValidationError(`A secret value is at most ${MAX_SECRET_BYTES} bytes`, [
            { path: '/value', message: `is longer than ${MAX_SECRET_BYTES} bytes` },
          ]);
        }
        const { created, ...stored } = await putSecret(deps.db, deps.masterKey, principal!.userId, key, body.value, body.hosts);
        return { status: created ? 201 : 200, body: stored };
      },
    }),
    defineRoute(OPERATIONS.deleteSecret, {
      async handle({ params, principal }) {
        if (!(await deleteSecret(deps.db, principal!.userId, checkKey(params.key!))))
          throw new NotFoundError(`You have no secret named "${params.key}"`);
        return { status: 204 };
      },
    }),
  ];
}
