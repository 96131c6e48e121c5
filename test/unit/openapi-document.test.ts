// The committed openapi.json is what clients generate their types from; it must be exactly what the
// contract builds, so a change to an operation cannot ship without the document that describes it.
import fs from 'node:fs';
import { expect, test } from 'vitest';
import { committedOpenApiDocument, OPENAPI_FILE } from '../../dev/openapi-document.ts';

test('the committed openapi.json equals the document the contract builds', () => {
  const committed: unknown = fs.existsSync(OPENAPI_FILE) ? JSON.parse(fs.readFileSync(OPENAPI_FILE, 'utf8')) : undefined;
  expect(committed, `${OPENAPI_FILE} differs from what the code generates: run \`npm run openapi\` and commit it`).toEqual(
    JSON.parse(JSON.stringify(committedOpenApiDocument())),
  );
});
