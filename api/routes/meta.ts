// The machine-readable description of the API, built from the same route declarations that run.
import { defineRoute, type RouteDef } from '../route.ts';
import { buildOpenApi } from '../openapi.ts';
import type { ApiDeps } from '../context.ts';
import { SERVICE_VERSION } from '../../lib/version.ts';

export function metaRoutes(deps: ApiDeps, allRoutes: () => RouteDef[]) {
  let cached: Record<string, unknown> | undefined;
  return [
    defineRoute({
      method: 'get',
      path: '/openapi.json',
      summary: 'This description of the API (OpenAPI 3.1)',
      tag: 'meta',
      auth: { kind: 'public' },
      responses: { 200: { description: 'The OpenAPI document', schema: { type: 'object' } } },
      handle() {
        cached ??= buildOpenApi(allRoutes(), { version: SERVICE_VERSION, serverUrl: deps.config.publicBaseUrl });
        return { status: 200, body: cached };
      },
    }),
  ];
}
