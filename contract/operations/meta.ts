// What the service says about itself: the OpenAPI document and the JSON Schemas it publishes.
import { defineOperation, type ResponseOf } from './operation.ts';

/** The JSON Schemas served under /schema/, by name. */
export const PUBLISHED_SCHEMAS = [
  { name: 'bundle', path: '/schema/bundle.json', description: 'The agent bundle accepted by POST /deploy' },
] as const;

export const getOpenApi = defineOperation({
  id: 'getOpenApi',
  method: 'get',
  path: '/openapi.json',
  summary: 'This description of the API (OpenAPI 3.1)',
  tag: 'meta',
  auth: { kind: 'public' },
  responses: { 200: { description: 'The OpenAPI document', schema: { type: 'object' } } },
});

export const listSchemas = defineOperation({
  id: 'listSchemas',
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
              required: ['name', 'path'],
              properties: { name: { type: 'string' }, path: { type: 'string' }, description: { type: 'string' } },
            },
          },
        },
      },
    },
  },
});

export const getBundleSchema = defineOperation({
  id: 'getBundleSchema',
  method: 'get',
  path: '/schema/bundle.json',
  summary: 'The JSON Schema of an agent bundle',
  description: 'Point a bundle\'s "$schema" at this URL for editor completion and checks.',
  tag: 'meta',
  auth: { kind: 'public' },
  responses: { 200: { description: 'The schema', contentType: 'application/schema+json', schema: { type: 'object' } } },
});

export type SchemaList = ResponseOf<typeof listSchemas, 200>;
