// What a user's remote MCP servers may cost the API and show to others: a listing of a server's tools
// bounded as a whole (MCP_LIST_TIMEOUT_MS), given up when its caller hangs up, and counted per user
// (MCP_LISTINGS_PER_USER); the live listing only for `agents:write`; the server's URL redacted for any
// other key and in errors; registrations that never pass MCP_SERVERS_PER_USER, however many race.
import { describe, expect, onTestFinished } from 'vitest';
import { apiTest } from '../helpers/harness/fixtures.ts';
import { createTestUser, type TestUser } from '../helpers/harness/users.ts';
import { call } from '../helpers/client/request.ts';
import { startFakeMcpServer, type FakeMcpOptions, type FakeMcpServer, type FakeMcpTool } from '../helpers/fakes/mcp-servers.ts';

const LIST_TIMEOUT_MS = 5000;
const test = apiTest({
  OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8',
  MCP_SERVERS_PER_USER: '3',
  MCP_LIST_TIMEOUT_MS: String(LIST_TIMEOUT_MS),
  MCP_LISTINGS_PER_USER: '2',
});

async function fake(tools: FakeMcpTool[], options?: FakeMcpOptions): Promise<FakeMcpServer> {
  const server = await startFakeMcpServer(tools, options);
  onTestFinished(() => server.close());
  return server;
}

const register = (apiUrl: string, user: TestUser, id: string, url: string) =>
  call(`${apiUrl}/mcp/${id}`, { method: 'PUT', headers: user.auth, json: { url } });

/** GET /mcp/<id> left running until `abort()`: the listing it started stays in flight. */
function listingInFlight(apiUrl: string, user: TestUser, id: string) {
  const controller = new AbortController();
  const answer = fetch(`${apiUrl}/mcp/${id}`, { headers: user.auth, signal: controller.signal }).catch(() => undefined);
  return { abort: () => controller.abort(), answer };
}

async function until(done: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  await expect.poll(done, { timeout: timeoutMs, interval: 20, message: what }).toBe(true);
}

describe('who sees what', () => {
  test('GET /mcp/<id> needs agents:write; a read key reads GET /mcps, with the query string of each URL redacted', async ({ api }) => {
    const user = await createTestUser(api.db);
    const server = await fake([{ name: 'lookup' }]);
    const token = `tok${crypto.randomUUID().replace(/-/g, '')}`;
    const url = `${server.url}?token=${token}&v=2`;
    expect((await register(api.url, user, 'tokened', url)).status).toBe(201);
    const minted = await call<{ key: string }>(`${api.url}/key`, { headers: user.auth, json: { name: 'reader', scopes: ['read'] } });
    const reader = { authorization: `Bearer ${minted.body.key}` };

    const asReader = await call<{ id: string; url?: string }[]>(`${api.url}/mcps`, { headers: reader });
    expect(asReader.body.find((one) => one.id === 'tokened')).toMatchObject({ url: `${server.url}?[redacted]` });
    expect(asReader.text).not.toContain(token);
    expect(await call(`${api.url}/mcp/tokened`, { headers: reader })).toMatchObject({ status: 403 });
    expect(server.requests).toEqual([]);

    const asWriter = await call<{ id: string; url?: string }[]>(`${api.url}/mcps`, { headers: user.auth });
    expect(asWriter.body.find((one) => one.id === 'tokened')).toMatchObject({ url });
    const live = await call<{ url: string; tools: { name: string }[] }>(`${api.url}/mcp/tokened`, { headers: user.auth });
    expect(live.body).toMatchObject({ url, tools: [{ name: 'lookup' }] });
  });

  test("a deploy's error and GET /mcp/<id>'s 502 name the server by its URL redacted", async ({ api }) => {
    const user = await createTestUser(api.db);
    const down = await fake([{ name: 'noop' }]);
    await down.close();
    const token = `tok${crypto.randomUUID().replace(/-/g, '')}`;
    await register(api.url, user, 'down', `${down.url}?key=${token}`);
    const deploy = await call<{ errors: { path: string; message: string }[] }>(`${api.url}/deploy`, {
      headers: user.auth,
      json: { name: 'redacted', model: { providerId: 'openai-compatible', modelId: 'fake-model' }, mcps: ['down'] },
    });
    expect(deploy.body.errors).toEqual([
      { path: '/mcps/0', message: expect.stringContaining(`"down" (${down.url}?[redacted]) could not be reached`) },
    ]);
    expect(deploy.text).not.toContain(token);
    const live = await call(`${api.url}/mcp/down`, { headers: user.auth });
    expect(live.status).toBe(502);
    expect(live.text).toContain('?[redacted]');
    expect(live.text).not.toContain(token);
  });
});

describe('listings', () => {
  test('one listing ends at MCP_LIST_TIMEOUT_MS, however slowly its pages come', async ({ api }) => {
    const user = await createTestUser(api.db);
    // Each page well within any one request's timeout; all twelve far past the listing's.
    const slow = await fake([{ name: 'late' }], { slowPages: { count: 12, delayMs: 1000 } });
    await register(api.url, user, 'slow', slow.url);
    const started = Date.now();
    const answer = await call(`${api.url}/mcp/slow`, { headers: user.auth });
    expect(answer.body).toMatchObject({
      status: 502,
      detail: expect.stringMatching(/"slow" did not list its tools within 5000 ms \(MCP_LIST_TIMEOUT_MS\)/),
    });
    // The bound the setting names, with room for a loaded machine (the server alone would take 12 s).
    expect(Date.now() - started).toBeLessThan(LIST_TIMEOUT_MS + 3000);
    await until(() => slow.inFlight() === 0, 'the slow server still has a connection open');
  });

  test('a listing is given up when its caller hangs up: its connection to the server closes', async ({ api }) => {
    const user = await createTestUser(api.db);
    const holding = await fake([{ name: 'held' }], { holds: 'tools/list' });
    await register(api.url, user, 'holding', holding.url);
    const listing = listingInFlight(api.url, user, 'holding');
    await until(() => holding.held() === 1, 'the listing did not reach tools/list');
    const abortedAt = Date.now();
    listing.abort();
    await listing.answer;
    // Well before the listing's own deadline (5 s from its start).
    await until(() => holding.held() === 0, 'the held tools/list is still open', 3000);
    expect(Date.now() - abortedAt).toBeLessThan(3000);
  });

  test("a user's listings in flight are bounded (MCP_LISTINGS_PER_USER): the next is 429 with Retry-After, another user's is not", async ({
    api,
  }) => {
    const user = await createTestUser(api.db);
    const holding = await fake([{ name: 'held' }], { holds: 'tools/list' });
    const quick = await fake([{ name: 'quick' }]);
    await register(api.url, user, 'holding', holding.url);
    await register(api.url, user, 'quick', quick.url);
    const running = [listingInFlight(api.url, user, 'holding'), listingInFlight(api.url, user, 'holding')];
    await until(() => holding.held() === 2, 'two listings did not reach tools/list');

    const refused = await call(`${api.url}/mcp/quick`, { headers: user.auth });
    expect(refused.body).toMatchObject({ status: 429, detail: expect.stringMatching(/MCP_LISTINGS_PER_USER/) });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    const deploy = await call(`${api.url}/deploy`, {
      headers: user.auth,
      json: { name: 'bounded', model: { providerId: 'openai-compatible', modelId: 'fake-model' }, mcps: ['quick'] },
    });
    expect(deploy.status).toBe(429);
    expect(quick.requests).toEqual([]);

    const other = await createTestUser(api.db);
    await register(api.url, other, 'quick', quick.url);
    expect((await call(`${api.url}/mcp/quick`, { headers: other.auth })).status).toBe(200);

    for (const listing of running) listing.abort();
    await Promise.all(running.map((listing) => listing.answer));
    await until(() => holding.held() === 0, 'the held listings did not end');
    await expect
      .poll(async () => (await call(`${api.url}/mcp/quick`, { headers: user.auth })).status, { timeout: 10_000, interval: 100 })
      .toBe(200);
  });
});

describe('registering', () => {
  test('25 registrations at once never pass MCP_SERVERS_PER_USER (3)', async ({ api }) => {
    // Several users in turn: one race lost proves little.
    for (let round = 0; round < 5; round++) {
      const user = await createTestUser(api.db);
      const statuses = await Promise.all(
        Array.from(
          { length: 25 },
          async (_, index) => (await register(api.url, user, `racer-${index}`, 'https://mcp.example.com/mcp')).status,
        ),
      );
      const listed = await call<{ kind: string }[]>(`${api.url}/mcps`, { headers: user.auth });
      expect(listed.body.filter((server) => server.kind === 'remote')).toHaveLength(3);
      expect(statuses.filter((status) => status === 201)).toHaveLength(3);
      expect(statuses.filter((status) => status === 403)).toHaveLength(22);
    }
  });
});
