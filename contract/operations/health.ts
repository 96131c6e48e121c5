// Liveness: public, so load balancers and the launcher can poll it.
import { defineOperation, type ResponseOf } from './operation.ts';

const CHECK = {
  type: 'object',
  required: ['ok'],
  properties: { ok: { type: 'boolean' }, error: { type: 'string' } },
} as const;

const CHECKS = { type: 'object', properties: { postgres: CHECK, temporal: CHECK } } as const;

export const getHealth = defineOperation({
  id: 'getHealth',
  method: 'get',
  path: '/auth/health',
  summary: 'Is the service up?',
  description: 'Needs no key. Checks that PostgreSQL and Temporal answer.',
  tag: 'health',
  auth: { kind: 'public' },
  responses: {
    200: {
      description: 'Every part answers',
      schema: { type: 'object', required: ['ok'], properties: { ok: { const: true }, checks: CHECKS } },
    },
    503: {
      description: 'A part does not answer; `checks` names it',
      contentType: 'application/json',
      schema: { type: 'object', required: ['ok', 'checks'], properties: { ok: { const: false }, checks: CHECKS } },
    },
  },
});

export type Health = ResponseOf<typeof getHealth, 200> | ResponseOf<typeof getHealth, 503>;
