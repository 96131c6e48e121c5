// The document `npm run openapi` commits: the contract's, with the service's version and no servers
// (a deployment's GET /openapi.json adds its PUBLIC_BASE_URL as the server).
import { openApiDocument, type OpenApiDocument } from '../contract/openapi/index.ts';
import { SERVICE_VERSION } from '../lib/version.ts';

/** Relative to the repository root. */
export const OPENAPI_FILE = 'openapi.json';

export function committedOpenApiDocument(): OpenApiDocument {
  return openApiDocument({ version: SERVICE_VERSION });
}
