// `npm run openapi`: writes the API's OpenAPI document, built from the contract alone, to openapi.json
// at the repository root (committed, so clients generate types from it without running the service).
// test/unit/openapi-document.test.ts fails while the committed file differs from what this writes.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import prettier from 'prettier';
import { committedOpenApiDocument, OPENAPI_FILE } from './openapi-document.ts';

const file = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', OPENAPI_FILE);
const text = JSON.stringify(committedOpenApiDocument());
const formatted = await prettier.format(text, { ...(await prettier.resolveConfig(file)), filepath: file });
fs.writeFileSync(file, formatted);
console.log(`wrote ${OPENAPI_FILE}`);
