// Published JSON Schemas: what editors and CLIs validate bundles with before deploying.
import { defineRoute } from '../route.ts';
import { BUNDLE_SCHEMA } from '../../lib/bundle/index.ts';

const SCHEMAS = [{ name: 'bundle', path: '/schema/bundle.json', description: 'The agent bundle accepted by POST /deploy' }];

export function schemaRoutes() {
  return [
    defineRoute({
      method: 'get',
      path: '/schema',
      summary: 'The JSON Schemas this service publishes',
      tag: 'meta',
      auth: { kind: 'public' },
      responses: {
        200: {
          description: 'Names and paths',
          schema: {
            type: 'object',
            required: ['schemas'],
            properties: {
              schemas: {
                type: 'array',
                items: {
                  type: 'object',
                  properties: { name: { type: 'string' }, path: { type: 'string' }, description: { type: 'string' } },
                },
              },
            },
          },
        },
      },
      handle() {
        return { status: 200, body: { schemas: SCHEMAS } };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/schema/bundle.json',
      summary: 'The JSON Schema of an agent bundle',
      description: 'Point a bundle\'s "$schema" at this URL for editor completion and checks.',
      tag: 'meta',
      auth: { kind: 'public' },
      responses: { 200: { description: 'The schema', contentType: 'application/schema+json', schema: { type: 'object' } } },
      handle({ res }) {
        res.status(200).type('application/schema+json').send(JSON.stringify(BUNDLE_SCHEMA));
        return undefined;
      },
    }),
  ];
}
