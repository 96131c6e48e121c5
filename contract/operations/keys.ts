// API keys of the calling user, and (admin) users with their first key.
import { SCOPES } from '../scopes.ts';
import { defineOperation, type ResponseOf, type Sent } from './operation.ts';
import { NULLABLE_TIME, TIME } from './shared.ts';

const KEY_FIELDS = {
  id: { type: 'string' },
  name: { type: 'string' },
  scopes: { type: 'array', items: { enum: SCOPES } },
  createdAt: TIME,
} as const;

export const KEY_LISTING_SCHEMA = {
  type: 'object',
  required: ['id', 'name', 'prefix', 'scopes', 'createdAt', 'lastUsedAt'],
  properties: {
    ...KEY_FIELDS,
    prefix: { type: 'string', description: 'The first characters of the key, to tell keys apart' },
    lastUsedAt: NULLABLE_TIME,
  },
} as const;

export const CREATE_KEY_BODY_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 100 },
    scopes: { type: 'array', items: { enum: SCOPES }, minItems: 1, uniqueItems: true },
  },
} as const;

export const listKeys = defineOperation({
  id: 'listKeys',
  method: 'get',
  path: '/key',
  summary: 'List your API keys (never the keys themselves)',
  tag: 'keys',
  auth: { kind: 'scope', scope: 'read' },
  responses: {
    200: {
      description: 'Your keys, oldest first',
      schema: { type: 'object', required: ['keys'], properties: { keys: { type: 'array', items: KEY_LISTING_SCHEMA } } },
    },
  },
});

export const createKey = defineOperation({
  id: 'createKey',
  method: 'post',
  path: '/key',
  summary: 'Create an API key',
  description:
    'The key is in this response only. Without `scopes` the new key has every scope of the calling key; ' +
    'a key can never grant a scope it does not hold itself (403). `admin` is held only by keys of an admin user: ' +
    "a new key of an admin user has it unless `scopes` leaves it out, another user's key can never have it (403).",
  tag: 'keys',
  auth: { kind: 'scope', scope: 'keys:write' },
  body: { schema: CREATE_KEY_BODY_SCHEMA },
  responses: {
    201: {
      description: 'The new key, shown once',
      schema: {
        type: 'object',
        required: ['id', 'key', 'name', 'scopes', 'createdAt'],
        properties: { ...KEY_FIELDS, key: { type: 'string' } },
      },
    },
  },
});

export const deleteKey = defineOperation({
  id: 'deleteKey',
  method: 'delete',
  path: '/key/{id}',
  summary: 'Delete an API key; it is refused from then on',
  tag: 'keys',
  auth: { kind: 'scope', scope: 'keys:write' },
  responses: { 204: { description: 'Deleted' }, 404: { description: 'You have no key with this id' } },
});

export const createUser = defineOperation({
  id: 'createUser',
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
});

export type KeyListing = Sent<typeof KEY_LISTING_SCHEMA>;
export type CreateKeyBody = Sent<typeof CREATE_KEY_BODY_SCHEMA>;
export type CreatedKey = ResponseOf<typeof createKey, 201>;
export type CreateUserBody = Sent<typeof createUser.body.schema>;
export type CreatedUser = ResponseOf<typeof createUser, 201>;
export type KeyList = ResponseOf<typeof listKeys, 200>;
