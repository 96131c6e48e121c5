// client.mcps against the real API and a fake MCP server: register, list beside the built-in servers,
// check (connect and list the tools, with a header's secret filled in), delete, and each failure as
// the SDK's typed error. `toolServers` stays the older name of the same resource.
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { apiTest } from '../helpers/harness/fixtures.ts';
import { startFakeMcpServer, text, type FakeMcpServer } from '../helpers/fakes/mcp-servers.ts';
import { BadRequestError, Client, InternalServerError, NotFoundError, PermissionDeniedError } from '../../sdk/src/index.ts';

const test = apiTest({ OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8', MCP_SERVERS_PER_USER: '2' });

let server: FakeMcpServer;
/** The address of an MCP server that was there and is gone: nothing answers on its port. */
let goneUrl: string;
beforeAll(async () => {
  server = await startFakeMcpServer([
    { name: 'lookup_ticket', description: 'Find a ticket by its number', run: () => text('open') },
    { name: 'close_ticket', description: 'Close a ticket' },
  ]);
  const gone = await startFakeMcpServer([]);
  goneUrl = gone.url;
  await gone.close();
});
afterAll(() => server?.close());

describe('client.mcps', () => {
  test('put, list beside the built-in servers, retrieve with the tools, delete', async ({ api, user }) => {
    const client = new Client({ baseUrl: api.url, apiKey: user.apiKey });
    await client.secrets.put('TICKETS_TOKEN', 'tok-sdk-secret', { hosts: ['127.0.0.1'] });

    const stored = await client.mcps.put('tickets', {
      url: server.url,
      headers: { Authorization: 'Bearer {{secrets.TICKETS_TOKEN}}', 'X-Team': 'support' },
      description: 'The ticket desk',
    });
    expect(stored).toMatchObject({ id: 'tickets', kind: 'remote', url: server.url, description: 'The ticket desk' });
    expect(stored.headerNames.sort()).toEqual(['Authorization', 'X-Team']);
    expect(JSON.stringify(stored)).not.toContain('TICKETS_TOKEN');

    const servers = await client.mcps.list();
    const kinds = servers.map((one) => one.kind);
    // Built-in first, then yours.
    expect(kinds.indexOf('remote')).toBe(kinds.lastIndexOf('builtin') + 1);
    expect(servers.filter((one) => one.kind === 'builtin').map((one) => one.id)).toEqual(expect.arrayContaining(['time', 'http']));
    expect(servers.find((one) => one.id === 'tickets')).toMatchObject({ kind: 'remote', headerNames: expect.any(Array) });
    // The older name is the same resource, and the same call.
    expect(client.toolServers).toBe(client.mcps);
    expect(await client.toolServers.list()).toEqual(servers);

    const requestsBefore = server.requests.length;
    const checked = await client.mcps.retrieve('tickets');
    expect(checked.kind).toBe('remote');
    expect(checked.tools?.map((tool) => tool.name)).toEqual(['lookup_ticket', 'close_ticket']);
    expect(checked.tools?.[0]).toMatchObject({ description: 'Find a ticket by its number', inputSchema: { type: 'object' } });
    // The check connected now, with the secret filled in and the plain header as written.
    const sent = server.requests.slice(requestsBefore);
    expect(sent.length).toBeGreaterThan(0);
    expect(sent.every((headers) => headers.authorization === 'Bearer tok-sdk-secret' && headers['x-team'] === 'support')).toBe(true);

    const builtin = await client.mcps.retrieve('time');
    expect(builtin).toMatchObject({ id: 'time', kind: 'builtin' });
    expect(builtin.tools?.map((tool) => tool.name)).toContain('current_time');

    // Replaced in place: the same id, the new URL and no headers.
    expect(await client.mcps.put('tickets', { url: `${server.url}?v=2` })).toMatchObject({ url: `${server.url}?v=2`, headerNames: [] });
    expect((await client.mcps.list()).filter((one) => one.id === 'tickets')).toHaveLength(1);

    await client.mcps.delete('tickets');
    expect((await client.mcps.list()).some((one) => one.id === 'tickets')).toBe(false);
    await expect(client.mcps.retrieve('tickets')).rejects.toBeInstanceOf(NotFoundError);
    await expect(client.mcps.delete('tickets')).rejects.toBeInstanceOf(NotFoundError);
  });

  test('refusals are typed errors: a bad id, a built-in id, a bad URL, past the limit', async ({ api, user }) => {
    const client = new Client({ baseUrl: api.url, apiKey: user.apiKey });
    for (const [id, url] of [
      ['Not-An-Id', server.url],
      ['time', server.url],
      ['ftp-server', 'ftp://127.0.0.1/mcp'],
    ] as const) {
      const refused = await client.mcps.put(id, { url }).catch((error: unknown) => error);
      expect(refused, `${id} ${url}`).toBeInstanceOf(BadRequestError);
      expect((refused as BadRequestError).detail).toBeTruthy();
    }

    await client.mcps.put('first', { url: server.url });
    await client.mcps.put('second', { url: server.url });
    const limited = await client.mcps.put('third', { url: server.url }).catch((error: unknown) => error);
    expect(limited).toBeInstanceOf(PermissionDeniedError);
    expect((limited as PermissionDeniedError).type).toMatch(/mcp-server-limit$/);
    // Replacing one you have is no new server.
    await expect(client.mcps.put('second', { url: server.url, description: 'again' })).resolves.toMatchObject({ description: 'again' });
    await client.mcps.delete('first');
    await client.mcps.delete('second');
  });

  test('a server that cannot be reached: a 502 InternalServerError naming it, asked once', async ({ api, user }) => {
    const calls: string[] = [];
    const client = new Client({
      baseUrl: api.url,
      apiKey: user.apiKey,
      fetch: (input, init) => {
        calls.push(`${init?.method ?? 'GET'} ${new URL(String(input)).pathname}`);
        return fetch(input, init);
      },
    });
    await client.mcps.put('gone', { url: goneUrl });
    const error = await client.mcps.retrieve('gone').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(InternalServerError);
    const failure = error as InternalServerError;
    expect(failure.status).toBe(502);
    expect(failure.type).toMatch(/mcp-unreachable$/);
    expect(failure.detail).toContain('"gone"');
    // The service already waited for the server: the SDK does not ask again by itself.
    expect(calls.filter((made) => made === 'GET /mcp/gone')).toHaveLength(1);
    // Unless told to.
    await expect(client.mcps.retrieve('gone', { maxRetries: 1 })).rejects.toBeInstanceOf(InternalServerError);
    expect(calls.filter((made) => made === 'GET /mcp/gone')).toHaveLength(3);
    await client.mcps.delete('gone');
  });
});
