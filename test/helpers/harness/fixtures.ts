// Vitest fixtures for integration tests: a test file calls `apiTest()` or `agentTest()` once, at its
// top level, and its tests take what they need from their context:
//
//   const test = apiTest();
//   test("a user's key lists keys", async ({ api, user }) => {
//     expect((await call(`${api.url}/key`, { headers: user.auth })).status).toBe(200);
//   });
//
// Everything here is file-scoped: started once for the file, closed after its last test and after
// its afterAll hooks, which may still use it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'vitest';
import { createPool, type Db } from '../../../store/db.ts';
import { startTestApi, type TestApi } from './api.ts';
import { startAgentEnv, type AgentEnv } from './agent-env.ts';
import { createTestUser, type TestUser } from './users.ts';
import { testConfig } from './env.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../fakes/webhook-receiver.ts';
import { call } from '../client/request.ts';

export interface ApiTestOptions {
  /** The file's `user` is an admin. */
  admin?: boolean;
  /** Store uploads under a temporary DATA_DIR of the file's own (`api.config.dataDir`), removed after the file. */
  ownDataDir?: boolean;
}

export interface AgentTestOptions {
  /** false when the test runs its workers as separate processes. */
  inProcessWorker?: boolean;
  /** Store uploads under a temporary DATA_DIR of the file's own (`env.api.config.dataDir`), removed after the file. */
  ownDataDir?: boolean;
}

/**
 * A test with `api` (the API in-process, configured with `env`), `user` (made once for the file) and
 * `db` (the tests' own pool, apart from the API's: it keeps working while an API under test is closed).
 */
export function apiTest(env: Record<string, string> = {}, options: ApiTestOptions = {}) {
  const extended = test
    // Vitest reads a fixture's dependencies from its first parameter's pattern: `{}` is "none".
    // eslint-disable-next-line no-empty-pattern
    .extend('api', { scope: 'file' }, async ({}, { onCleanup }): Promise<TestApi> => {
      const dataDir = options.ownDataDir ? temporaryDataDir() : undefined;
      const api = await startTestApi(dataDir ? { ...env, DATA_DIR: dataDir } : env);
      onCleanup(async () => {
        await api.close();
        if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
      });
      return api;
    })
    .extend('user', { scope: 'file' }, ({ api }): Promise<TestUser> => createTestUser(api.db, { admin: options.admin }))
    // eslint-disable-next-line no-empty-pattern
    .extend('db', { scope: 'file' }, ({}, { onCleanup }): Db => {
      // Room for the concurrent appenders of the SSE tests.
      const db = createPool(testConfig().databaseUrl!, 30);
      onCleanup(() => db.end());
      return db;
    });
  // Set up in a beforeAll, where hookTimeout applies: set up by the first test that asks, their start
  // would count against that test's testTimeout.
  extended.beforeAll(async ({ user: _started }) => {});
  return extended;
}

/** A test with `env`: a fake model, a worker, an API and a user (see agent-env.ts), configured with `overrides`. */
export function agentTest(overrides: Record<string, string> = {}, options: AgentTestOptions = {}) {
  // eslint-disable-next-line no-empty-pattern
  const extended = test.extend('env', { scope: 'file' }, async ({}, { onCleanup }): Promise<AgentEnv> => {
    const dataDir = options.ownDataDir ? temporaryDataDir() : undefined;
    const env = await startAgentEnv(dataDir ? { ...overrides, DATA_DIR: dataDir } : overrides, {
      inProcessWorker: options.inProcessWorker,
    });
    onCleanup(async () => {
      await env.close();
      if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
    });
    return env;
  });
  // As in apiTest: a worker's start must not count against the first test's testTimeout.
  extended.beforeAll(async ({ env: _started }) => {});
  return extended;
}

/**
 * agentTest, plus `hooks`: a webhook receiver the file's user has subscribed to `events`, and the
 * subscription's `secret` that signs what it receives.
 */
export function agentWithHooksTest(overrides: Record<string, string>, events: readonly string[]) {
  const extended = agentTest(overrides).extend(
    'hooks',
    { scope: 'file' },
    async ({ env }, { onCleanup }): Promise<WebhookReceiver & { secret: string }> => {
      const receiver = await startWebhookReceiver();
      onCleanup(() => receiver.close());
      const created = await call<{ secret: string }>(`${env.api.url}/webhook`, {
        headers: env.user.auth,
        json: { url: receiver.url, events },
      });
      return Object.assign(receiver, { secret: created.body.secret });
    },
  );
  // As in apiTest: set up before the first test, under hookTimeout.
  extended.beforeAll(async ({ hooks: _started }) => {});
  return extended;
}

function temporaryDataDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'agent-service-test-data-'));
}
