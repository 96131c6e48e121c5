// Published JSON Schemas: what editors and CLIs validate bundles with before deploying.
import { OPERATIONS, PUBLISHED_SCHEMAS } from '../../contract/operations/index.ts';
import { defineRoute } from '../route.ts';
import { BUNDLE_SCHEMA } from '../../lib/bundle/index.ts';

export function schemaRoutes() {
  return [
    defineRoute(OPERATIONS.listSchemas, {
      handle() {
        return { status: 200, body: { schemas: PUBLISHED_SCHEMAS } };
      },
    }),
    defineRoute(OPERATIONS.getBundleSchema, {
      handle({ res }) {
        res.status(200).type('application/schema+json').send(JSON.stringify(BUNDLE_SCHEMA));
        return undefined;
      },
    }),
  ];
}
