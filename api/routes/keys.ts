// API keys of the calling user. The key is returned only by POST; listings show a display prefix.
import { defineRoute } from '../route.ts';
import type { ApiDeps } from '../context.ts';
import { deleteKey, insertKey, listKeys, type ApiKey } from '../../store/api-keys.ts';
import { ForbiddenError, NotFoundError } from '../../lib/errors.ts';
import { SCOPES, scopesFor, type Scope } from '../../contract/scopes.ts';

const keyFields = {
  id: { type: 'string' },
  name: { type: 'string' },
  scopes: { type: 'array', items: { enum: [...SCOPES] } },
  createdAt: { type: 'string', format: 'date-time' },
};

const keyListing = {
  type: 'object',
  required: ['id', 'name', 'prefix', 'scopes', 'createdAt', 'lastUsedAt'],
  properties: {
    ...keyFields,
    prefix: { type: 'string', description: 'The first characters of the key, to tell keys apart' },
    lastUsedAt: { type: ['string', 'null'], format: 'date-time' },
  },
};

function listing(key: ApiKey) {
  return { id: key.id, name: key.name, prefix: key.prefix, scopes: key.scopes, createdAt: key.createdAt, lastUsedAt: key.lastUsedAt };
}

interface CreateKeyBody {
  name?: string;
  scopes?: Scope[];
}

export function keyRoutes(deps: ApiDeps) {
  return [
    defineRoute({
      method: 'get',
      path: '/key',
      summary: 'List your API keys (never the keys themselves)',
      tag: 'keys',
      auth: { kind: 'scope', scope: 'read' },
      responses: {
        200: {
          description: 'Your keys, oldest first',
          schema: { type: 'object', required: ['keys'], properties: { keys: { type: 'array', items: keyListing } } },
        },
      },
      async handle({ principal }) {
        const keys = await listKeys(deps.db, principal!.userId);
        return { status: 200, body: { keys: keys.map(listing) } };
      },
    }),
    defineRoute<CreateKeyBody>({
      method: 'post',
      path: '/key',
      summary: 'Create an API key',
      description:
        'The key is in this response only. Without `scopes` the new key has every scope of the calling key; ' +
        'a key can never grant a scope it does not hold itself (403). `admin` is held only by keys of an admin user: ' +
        "a new key of an admin user has it unless `scopes` leaves it out, another user's key can never have it (403).",
      tag: 'keys',
      auth: { kind: 'scope', scope: 'keys:write' },
      body: {
        schema: {
          type: 'object',
          additionalProperties: false,
          properties: {
            name: { type: 'string', minLength: 1, maxLength: 100 },
            scopes: { type: 'array', items: { enum: [...SCOPES] }, minItems: 1, uniqueItems: true },
          },
        },
      },
      responses: {
        201: {
          description: 'The new key, shown once',
          schema: {
            type: 'object',
            required: ['id', 'key', 'name', 'scopes', 'createdAt'],
            properties: { ...keyFields, key: { type: 'string' } },
          },
        },
      },
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
    defineRoute({
      method: 'delete',
      path: '/key/:id',
      summary: 'Delete an API key; it is refused from then on',
      tag: 'keys',
      auth: { kind: 'scope', scope: 'keys:write' },
      responses: { 204: { description: 'Deleted' }, 404: { description: 'You have no key with this id' } },
      async handle({ params, principal }) {
        if (!(await deleteKey(deps.db, principal!.userId, params.id!))) throw new NotFoundError('You have no API key with this id');
        return { status: 204 };
      },
    }),
  ];
}
