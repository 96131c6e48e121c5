// Secrets: write-only values. Answers carry names and dates, never a value.
import { SECRET_KEY_PATTERN } from '../bundle-constants.ts';
import { defineOperation, type ResponseOf, type Sent } from './operation.ts';
import { TIME } from './shared.ts';

export const MAX_SECRET_BYTES = 64 * 1024;

export const SECRET_INFO_SCHEMA = {
  type: 'object',
  required: ['key', 'createdAt', 'updatedAt'],
  properties: { key: { type: 'string' }, createdAt: TIME, updatedAt: TIME },
} as const;

export const PUT_SECRET_BODY_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['value'],
  properties: { value: { type: 'string', minLength: 1 } },
} as const;

export const listSecrets = defineOperation({
  id: 'listSecrets',
  method: 'get',
  path: '/secret',
  summary: 'List your secrets (names and dates, never values)',
  tag: 'secrets',
  auth: { kind: 'scope', scope: 'read' },
  responses: {
    200: {
      description: 'Your secrets by name',
      schema: { type: 'object', required: ['secrets'], properties: { secrets: { type: 'array', items: SECRET_INFO_SCHEMA } } },
    },
  },
});

export const putSecret = defineOperation({
  id: 'putSecret',
  method: 'put',
  path: '/secret/{key}',
  summary: 'Store or replace a secret',
  description:
    `Names match ${SECRET_KEY_PATTERN.source}; values are at most ${MAX_SECRET_BYTES} bytes, encrypted at rest ` +
    '(AES-256-GCM), and never returned.',
  tag: 'secrets',
  auth: { kind: 'scope', scope: 'secrets:write' },
  body: { required: true, schema: PUT_SECRET_BODY_SCHEMA },
  responses: { 200: { description: 'Replaced', schema: SECRET_INFO_SCHEMA }, 201: { description: 'Created', schema: SECRET_INFO_SCHEMA } },
});

export const deleteSecret = defineOperation({
  id: 'deleteSecret',
  method: 'delete',
  path: '/secret/{key}',
  summary: 'Delete a secret',
  tag: 'secrets',
  auth: { kind: 'scope', scope: 'secrets:write' },
  responses: { 204: { description: 'Deleted' }, 404: { description: 'You have no secret of that name' } },
});

export type SecretInfo = Sent<typeof SECRET_INFO_SCHEMA>;
export type PutSecretBody = Sent<typeof PUT_SECRET_BODY_SCHEMA>;
export type SecretList = ResponseOf<typeof listSecrets, 200>;
