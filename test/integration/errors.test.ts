// Bad input never crashes the API and always gets application/problem+json with a trace id.
import { describe, expect } from 'vitest';
import { apiTest } from '../helpers/harness/fixtures.ts';
import { startTestApi } from '../helpers/harness/api.ts';
import { call, type JsonResponse } from '../helpers/client/request.ts';

const test = apiTest();

function expectProblem(response: JsonResponse, status: number): void {
  expect(response.status).toBe(status);
  expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  const traceId = response.headers.get('x-trace-id');
  expect(traceId).toMatch(/^[0-9a-f]{32}$/);
  expect(response.body).toMatchObject({ type: expect.stringMatching(/^https:\/\//), title: expect.any(String), status, traceId });
}

describe('authentication', () => {
  test.for<[string, Record<string, string>]>([
    ['no header', {}],
    ['an unknown key', { authorization: 'Bearer sk_00000000000000000000000000' }],
    ['a malformed header', { authorization: 'Bearer' }],
    ['another scheme', { authorization: 'Basic dXNlcjpwYXNz' }],
    ['an absurdly long key', { authorization: `Bearer ${'x'.repeat(5000)}` }],
  ])('%s gets 401', async ([_name, headers], { api }) => {
    expectProblem(await call(`${api.url}/key`, { headers }), 401);
  });
});

describe('bodies', () => {
  test('malformed JSON gets 400', async ({ api, user }) => {
    const response = await call(`${api.url}/key`, { headers: { ...user.auth, 'content-type': 'application/json' }, body: '{"name": ' });
    expectProblem(response, 400);
  });

  test('a 2 MiB body gets 413', async ({ api, user }) => {
    const response = await call(`${api.url}/key`, { headers: user.auth, json: { name: 'x'.repeat(2 * 1024 * 1024) } });
    expectProblem(response, 413);
  });

  test('a body that is not JSON gets 415', async ({ api, user }) => {
    const response = await call(`${api.url}/key`, { headers: { ...user.auth, 'content-type': 'text/plain' }, body: 'name=x' });
    expectProblem(response, 415);
  });

  test('a JSON array where an object is expected gets 400 at the root', async ({ api, user }) => {
    const response = await call<{ errors: { path: string }[] }>(`${api.url}/key`, { headers: user.auth, json: [] });
    expectProblem(response as JsonResponse, 400);
    expect(response.body.errors).toEqual([{ path: '', message: expect.any(String) }]);
  });
});

describe('routes', () => {
  test('an unknown route gets a 404 problem', async ({ api, user }) => {
    expectProblem(await call(`${api.url}/no/such/route`), 404);
    expectProblem(await call(`${api.url}/key`, { method: 'PATCH', headers: user.auth }), 404);
  });

  test('the trace id of a W3C traceparent is reused', async ({ api }) => {
    const response = await call(`${api.url}/auth/health`, {
      headers: { traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' },
    });
    expect(response.headers.get('x-trace-id')).toBe('4bf92f3577b34da6a3ce929d0e0e4736');
  });
});

describe('health', () => {
  test('200 when PostgreSQL and Temporal answer, without a key', async ({ api }) => {
    const response = await call(`${api.url}/auth/health`);
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ ok: true });
  });

  test('503 naming Temporal when it does not answer', async () => {
    const broken = await startTestApi({ TEMPORAL_ADDRESS: '127.0.0.1:1' });
    try {
      const response = await call<{ ok: boolean; checks: Record<string, { ok: boolean; error?: string }> }>(`${broken.url}/auth/health`);
      expect(response.status).toBe(503);
      expect(response.body.ok).toBe(false);
      expect(response.body.checks.postgres!.ok).toBe(true);
      expect(response.body.checks.temporal).toMatchObject({ ok: false, error: expect.any(String) });
    } finally {
      await broken.close();
    }
  });

  test('503 naming PostgreSQL when it does not answer', async () => {
    const broken = await startTestApi({ DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' });
    try {
      const response = await call<{ checks: Record<string, { ok: boolean }> }>(`${broken.url}/auth/health`);
      expect(response.status).toBe(503);
      expect(response.body.checks.postgres!.ok).toBe(false);
      expect(response.body.checks.temporal!.ok).toBe(true);
    } finally {
      await broken.close();
    }
  });
});

describe('server errors', () => {
  test('a database that refuses connections is a 503 with Retry-After, a trace id and no stack or internal detail', async ({ user }) => {
    const broken = await startTestApi({ DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' });
    try {
      const response = await call(`${broken.url}/key`, { headers: user.auth });
      expectProblem(response, 503);
      expect(response.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
      expect(response.text).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|\bat \S+ \(|node_modules|\.ts:\d+/);
      // The operator finds the cause in the log under the same trace id.
      const line = broken.logs.find((log) => log.msg === 'a dependency did not answer');
      expect(line).toMatchObject({ traceId: response.headers.get('x-trace-id') });
    } finally {
      await broken.close();
    }
  });
});

describe('logs', () => {
  test('carry the trace id and never the API key', async ({ api, user }) => {
    const response = await call(`${api.url}/key`, { headers: user.auth });
    const traceId = response.headers.get('x-trace-id');
    const line = api.logs.find((log) => log.traceId === traceId && log.msg === 'request');
    expect(line).toMatchObject({ method: 'GET', route: '/key', status: 200, userId: user.userId });
    expect(JSON.stringify(api.logs)).not.toContain(user.apiKey);
  });
});
