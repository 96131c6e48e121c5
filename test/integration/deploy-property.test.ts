// Random input thrown at POST /deploy: never a 5xx, and nothing invalid is ever deployed.
import { expect } from 'vitest';
import fc from 'fast-check';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule, { type FormatsPlugin } from 'ajv-formats';
import { apiTest } from '../helpers/harness/fixtures.ts';
import type { TestApi } from '../helpers/harness/api.ts';
import type { TestUser } from '../helpers/harness/users.ts';
import { call } from '../helpers/client/request.ts';
import { BUNDLE_SCHEMA } from '../../lib/bundle/index.ts';

const addFormats = (addFormatsModule as unknown as { default?: FormatsPlugin }).default ?? (addFormatsModule as unknown as FormatsPlugin);
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
const schemaAccepts = ajv.compile(BUNDLE_SCHEMA);

const test = apiTest();

async function deployText(api: TestApi, user: TestUser, text: string): Promise<void> {
  const response = await call<{ ok?: boolean; agentId?: string; revision?: number }>(`${api.url}/deploy`, {
    headers: { ...user.auth, 'content-type': 'application/jsonc' },
    body: text,
  });
  expect([200, 201, 400, 413]).toContain(response.status);
  if (response.status >= 300) {
    expect(response.body.ok).toBe(false);
    return;
  }
  // Whatever was accepted must be a valid bundle as stored.
  const { rows } = await api.db.query<{ bundle: unknown }>('SELECT bundle FROM agent_revisions WHERE agent_id = $1 AND revision = $2', [
    response.body.agentId,
    response.body.revision,
  ]);
  expect(schemaAccepts(rows[0]!.bundle)).toBe(true);
}

const validBase = { name: 'prop-agent', model: { providerId: 'openai', modelId: 'gpt-4o' } };

test('random text', async ({ api, user }) => {
  await fc.assert(
    fc.asyncProperty(fc.string({ maxLength: 400 }), (text) => deployText(api, user, text)),
    { numRuns: 150 },
  );
});

test('random JSON values', async ({ api, user }) => {
  await fc.assert(
    fc.asyncProperty(fc.jsonValue({ maxDepth: 4 }), (value) => deployText(api, user, JSON.stringify(value))),
    { numRuns: 150 },
  );
});

test('near-valid bundles: a valid one with one field replaced by anything', async ({ api, user }) => {
  const fields = [
    'name',
    'model',
    'instructions',
    'skills',
    'customTools',
    'workspaceFiles',
    'mcps',
    'triggers',
    'strictSecrets',
    'secretGrants',
    'jsonReply',
    'command',
    'userChannels',
    'workflows',
    'unknownField',
  ];
  await fc.assert(
    fc.asyncProperty(fc.constantFrom(...fields), fc.jsonValue({ maxDepth: 3 }), (field, value) =>
      deployText(api, user, JSON.stringify({ ...validBase, [field]: value })),
    ),
    { numRuns: 200 },
  );
});
