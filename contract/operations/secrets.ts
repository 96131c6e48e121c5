// Secrets: write-only values. Answers carry names and dates, never a value.
import { MAX_SECRET_HOSTS, SECRET_HOST_PATTERN, SECRET_KEY_PATTERN } from '../bundle-constants.ts';
import { defineOperation, type ResponseOf, type Sent } from './operation.ts';
import { TIME } from './shared.ts';

export const MAX_SECRET_BYTES = 64 * 1024;

const HOSTS = {
  type: 'array',
  maxItems: MAX_SECRET_HOSTS,
  uniqueItems: true,
  items: { type: 'string', maxLength: 253, pattern: SECRET_HOST_PATTERN.source },
  description:
    "Where the secret may be sent in a tool's request headers (`{{secrets.KEY}}` in the http tool): host names in lower case, " +
    'or `*.example.com` for any subdomain of example.com. A secret with none cannot be used in tool headers at all; ' +
    'model providers and approval channels read it wherever they are configured to.',
} as const;

export const SECRET_INFO_SCHEMA = {
  type: 'object',
  required: ['key', 'hosts', 'createdAt', 'updatedAt'],
  properties: { key: { type: 'string' }, hosts: HOSTS, createdAt: TIME, updatedAt: TIME },
} as const;

export const PUT_SECRET_BODY_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['value'],
  properties: {
    value: { type: 'string', minLength: 1 },
    hosts: { ...HOSTS, description: `${HOSTS.description} Left out, a new secret gets none and a replaced one keeps its own.` },
  },
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
