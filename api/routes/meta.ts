// The machine-readable description of the API: the contract's document (the one committed as
// openapi.json), with this deployment's public URL as its server when one is configured.
import { OPERATIONS } from '../../contract/operations/index.ts';
import { openApiDocument, type OpenApiDocument } from '../../contract/openapi/index.ts';
import { defineRoute } from '../route.ts';
import type { ApiDeps } from '../context.ts';
import { SERVICE_VERSION } from '../../lib/version.ts';

export function metaRoutes(deps: ApiDeps) {
  let cached: OpenApiDocument | undefined;
  return [
    defineRoute(OPERATIONS.getOpenApi, {
      handle() {
        cached ??= openApiDocument({ version: SERVICE_VERSION, serverUrl: deps.config.publicBaseUrl });
        return { status: 200, body: cached };
      },
    }),
  ];
}
