// The API's OpenAPI document from the contract alone: `npm run openapi` writes it to openapi.json,
// and GET /openapi.json serves the same document (with `servers` when PUBLIC_BASE_URL is set).
import { OPERATIONS } from '../operations/index.ts';
import { buildOpenApi, type OpenApiDocument, type OpenApiInfo } from './build.ts';

export { buildOpenApi, type OpenApiDocument, type OpenApiInfo, type OpenApiOperation } from './build.ts';
export { bundleComponents } from './bundle-components.ts';

export function openApiDocument(info: OpenApiInfo): OpenApiDocument {
  return buildOpenApi(Object.values(OPERATIONS), info);
}
