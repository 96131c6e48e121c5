// POST /deploy and the agent resources, over HTTP.
import { randomUUID } from 'node:crypto';
import { describe, expect } from 'vitest';
import { apiTest } from '../helpers/harness/fixtures.ts';
import type { TestApi } from '../helpers/harness/api.ts';
import { createTestUser, type TestUser } from '../helpers/harness/users.ts';
import { call } from '../helpers/client/request.ts';
import { BUNDLE_SCHEMA } from '../../contract/bundle-schema.ts';

const test = apiTest();

const uniqueName = () => `agent-${randomUUID().slice(0, 8)}`;

function deploy(api: TestApi, who: TestUser, text: string, contentType = 'application/jsonc') {
  return call<
    Record<string, unknown> & {
      ok: boolean;
      agentId: string;
      revision: number;
      warnings: string[];
      errors: { path: string; message: string }[];
    }
  >(`${api.url}/deploy`, { headers: { ...who.auth, 'content-type': contentType }, body: text });
}

const bundleText = (name: string, extra = '') => `{
  "$schema": "http://localhost/schema/bundle.json",
  // the model this agent talks to
  "name": "${name}",
  "model": { "providerId": "openai-compatible", "modelId": "fake-model" }, /* trailing comma next */
  ${extra}
}`;

describe('deploy', () => {
  test('a JSONC bundle creates an agent; the same name again adds a revision with the same id', async ({ api, user }) => {
    const name = uniqueName();
    const first = await deploy(api, user, bundleText(name));
    expect(first.status).toBe(201);
    expect(first.body).toEqual({
      ok: true,
      agentId: expect.stringMatching(/^agt_[0-9a-z]{26}$/),
      revision: 1,
      liveRevision: 1,
      warnings: [],
    });

    const second = await deploy(api, user, bundleText(name, '"instructions": "Be brief.",'), 'application/json');
    expect(second.status).toBe(200);
    expect(second.body).toEqual({ ok: true, agentId: first.body.agentId, revision: 2, liveRevision: 2, warnings: [] });

    const agent = await call<Record<string, unknown> & { bundle: Record<string, unknown> }>(`${api.url}/agent/${name}`, {
      headers: user.auth,
    });
    expect(agent.status).toBe(200);
    expect(agent.body).toMatchObject({
      id: first.body.agentId,
      name,
      revision: 2,
      model: { providerId: 'openai-compatible', modelId: 'fake-model' },
    });
    // Defaults applied and visible; $schema is not part of the agent.
    expect(agent.body.bundle).toEqual({
      name,
      model: { providerId: 'openai-compatible', modelId: 'fake-model' },
      instructions: 'Be brief.',
      skills: [],
      customTools: [],
      workspaceFiles: {},
      mcps: [],
      triggers: [],
      strictSecrets: false,
      secretGrants: [],
      userChannels: [],
      workflows: {},
    });

    const revisions = await call<{ revisions: { revision: number }[] }>(`${api.url}/agent/${name}/revisions`, { headers: user.auth });
    expect(revisions.body.revisions.map((revision) => revision.revision)).toEqual([2, 1]);
    const old = await call<{ revision: number; bundle: Record<string, unknown> }>(`${api.url}/agent/${name}/revisions/1`, {
      headers: user.auth,
    });
    expect(old.body.revision).toBe(1);
    expect(old.body.bundle.instructions).toBeUndefined();
    expect((await call(`${api.url}/agent/${name}/revisions/3`, { headers: user.auth })).status).toBe(404);
    expect((await call(`${api.url}/agent/${name}/revisions/one`, { headers: user.auth })).status).toBe(404);

    const list = await call<{ agents: { name: string; revision: number }[] }>(`${api.url}/agent`, { headers: user.auth });
    expect(list.body.agents).toContainEqual(expect.objectContaining({ name, revision: 2 }));
  });

  test('an invalid bundle reports every error with its path, as a problem, and stores nothing', async ({ api, user }) => {
    const name = uniqueName();
    const response = await deploy(
      api,
      user,
      `{ "name": "${name}", "model": { "providerId": "nope" }, "colour": "red", "triggers": [{ "kind": "cron", "expression": "61 * * * *" }] }`,
    );
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(response.body).toMatchObject({ ok: false, status: 400, traceId: expect.any(String) });
    const paths = response.body.errors.map((error) => error.path);
    expect(paths).toEqual(expect.arrayContaining(['/model/modelId', '/colour', '/triggers/0/expression']));
    expect((await call(`${api.url}/agent/${name}`, { headers: user.auth })).status).toBe(404);
  });

  test('a syntax error names its line and column', async ({ api, user }) => {
    const response = await deploy(api, user, '{\n  "name": "x",\n  "model": { "providerId": "openai" "modelId": "m" }\n}');
    expect(response.status).toBe(400);
    expect(response.body.errors[0]!.message).toMatch(/line 3, column \d+/);
  });

  test('other content types get 415, oversized bundles 413, a key without agents:write 403', async ({ api, user }) => {
    expect((await deploy(api, user, bundleText(uniqueName()), 'text/plain')).status).toBe(415);
    const big = bundleText(uniqueName(), `"instructions": "${'x'.repeat(2 * 1024 * 1024)}",`);
    expect((await deploy(api, user, big)).status).toBe(413);
    const reader = await createTestUser(api.db, { scopes: ['read'] });
    expect((await deploy(api, reader, bundleText(uniqueName()))).status).toBe(403);
  });

  test('webhook trigger URLs: a given suffix is used, a missing one is generated, unguessable and stable', async ({ api, user }) => {
    const name = uniqueName();
    const triggers =
      '"triggers": [{ "kind": "webhook", "suffix": "hook-1" }, { "kind": "webhook" }, { "kind": "cron", "expression": "@daily" }],';
    const deployed = await deploy(api, user, bundleText(name, triggers));
    expect(deployed.status).toBe(201);
    const read = async () =>
      (await call<{ triggers: { kind: string; url?: string; expression?: string }[] }>(`${api.url}/agent/${name}`, { headers: user.auth }))
        .body.triggers;
    const first = await read();
    const prefix = `/trigger/${user.userId}/${deployed.body.agentId}/`;
    expect(first[0]!.url).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:\\d+${prefix}hook-1$`));
    expect(first[1]!.url).toMatch(new RegExp(`${prefix}[0-9a-z]{26}$`));
    expect(first[2]).toEqual({ kind: 'cron', expression: '@daily', timezone: 'UTC', scheduleId: `cron:${deployed.body.agentId}:2` });
    await deploy(api, user, bundleText(name, `${triggers} "instructions": "v2",`));
    expect((await read())[1]!.url).toBe(first[1]!.url);
  });

  test('five concurrent deploys of one new name make one agent with revisions 1 to 5', async ({ api, user }) => {
    const name = uniqueName();
    const responses = await Promise.all(Array.from({ length: 5 }, () => deploy(api, user, bundleText(name))));
    expect(responses.map((response) => response.status).sort()).toEqual([200, 200, 200, 200, 201]);
    expect(new Set(responses.map((response) => response.body.agentId)).size).toBe(1);
    expect(responses.map((response) => response.body.revision).sort()).toEqual([1, 2, 3, 4, 5]);
  });

  test('strictSecrets: a grant of a missing secret fails; without it, the deploy warns', async ({ api, user }) => {
    const name = uniqueName();
    const missing = `MISSING_${randomUUID().slice(0, 6).toUpperCase()}`;
    const strict = await deploy(api, user, bundleText(name, `"strictSecrets": true, "secretGrants": ["${missing}"],`));
    expect(strict.status).toBe(400);
    expect(strict.body.errors).toEqual([{ path: '/secretGrants/0', message: expect.stringContaining(missing) }]);

    const lenient = await deploy(api, user, bundleText(name, `"secretGrants": ["${missing}"],`));
    expect(lenient.status).toBe(201);
    expect(lenient.body.warnings).toEqual([expect.stringContaining(missing)]);

    expect((await call(`${api.url}/secret/${missing}`, { method: 'PUT', headers: user.auth, json: { value: 'v' } })).status).toBe(201);
    const now = await deploy(api, user, bundleText(name, `"strictSecrets": true, "secretGrants": ["${missing}"],`));
    expect(now.status).toBe(200);
    expect(now.body.warnings).toEqual([]);
  });
});

describe('ownership and deletion', () => {
  test("another user's agent names are invisible, and the same name is theirs to use", async ({ api, user }) => {
    const name = uniqueName();
    const mine = await deploy(api, user, bundleText(name));
    const other = await createTestUser(api.db);
    expect((await call(`${api.url}/agent/${name}`, { headers: other.auth })).status).toBe(404);
    expect((await call(`${api.url}/agent/${name}/revisions`, { headers: other.auth })).status).toBe(404);
    expect((await call(`${api.url}/agent/${name}`, { method: 'DELETE', headers: other.auth })).status).toBe(404);
    const theirs = await deploy(api, other, bundleText(name));
    expect(theirs.status).toBe(201);
    expect(theirs.body.agentId).not.toBe(mine.body.agentId);
  });

  test('delete frees the name; a new deploy makes a new agent', async ({ api, user }) => {
    const name = uniqueName();
    const first = await deploy(api, user, bundleText(name));
    expect((await call(`${api.url}/agent/${name}`, { method: 'DELETE', headers: user.auth })).status).toBe(204);
    expect((await call(`${api.url}/agent/${name}`, { headers: user.auth })).status).toBe(404);
    expect((await call(`${api.url}/agent/${name}`, { method: 'DELETE', headers: user.auth })).status).toBe(404);
    const again = await deploy(api, user, bundleText(name));
    expect(again.status).toBe(201);
    expect(again.body).toMatchObject({ revision: 1 });
    expect(again.body.agentId).not.toBe(first.body.agentId);
  });
});

describe('published schema', () => {
  test('/schema/bundle.json is public and /schema lists it', async ({ api }) => {
    const schema = await fetch(`${api.url}/schema/bundle.json`);
    expect(schema.status).toBe(200);
    expect(schema.headers.get('content-type')).toMatch(/^application\/schema\+json/);
    const body = (await schema.json()) as { properties: Record<string, unknown>; additionalProperties: boolean };
    expect(body.additionalProperties).toBe(false);
    expect(Object.keys(body.properties)).toEqual(
      expect.arrayContaining(['name', 'model', 'instructions', 'triggers', 'secretGrants', 'jsonReply', 'command']),
    );
    for (const path of ['/schema', '/schema/']) {
      const listing = await call<{ schemas: { path: string }[] }>(`${api.url}${path}`);
      expect(listing.status).toBe(200);
      expect(listing.body.schemas).toContainEqual(expect.objectContaining({ path: '/schema/bundle.json' }));
    }
  });

  test('/openapi.json references the bundle schema for /deploy, resolvable inside the document', async ({ api }) => {
    const document = await call<{
      paths: Record<string, { post?: { requestBody: { content: Record<string, { schema: unknown }> } } }>;
      components: { schemas: Record<string, { required?: string[] }> };
    }>(`${api.url}/openapi.json`);
    expect(document.body.paths['/deploy']!.post!.requestBody.content['application/jsonc']!.schema).toEqual({
      $ref: '#/components/schemas/Bundle',
    });
    expect(document.body.components.schemas.Bundle!.required).toEqual(BUNDLE_SCHEMA.required);
  });
});
