// What the service makes of a remote MCP server's answers: results as the model reads them, tool lists
// as a revision freezes them (and the bounds that fail a deploy, a secret quoted among them), URLs as
// others read them, idempotency keys; and, against local fakes, what the connection does with the
// server's redirects and its standalone event stream.
import { afterEach, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { resultText } from '../../lib/mcp/call.ts';
import { connectMcp } from '../../lib/mcp/connect.ts';
import { mcpErrorText } from '../../lib/mcp/error-text.ts';
import { secretInListing } from '../../lib/mcp/listing-secrets.ts';
import { listRemoteTools, REMOTE_TOOL_LIMITS } from '../../lib/mcp/tools.ts';
import { filledHeaders } from '../../lib/mcp/headers.ts';
import { redactedMcpUrl, urlCredentialMasker } from '../../lib/mcp/url-redaction.ts';
import { createOutboundClient } from '../../lib/outbound.ts';
import { toolCallIdempotencyKey } from '../../lib/tool-call-keys.ts';
import type { Config } from '../../lib/config.ts';
import { RateLimitedError } from '../../lib/workflow-safe/errors.ts';
import { registeredToolsReader } from '../../api/agents/registered-tools.ts';
import {
  startFakeMcpServer,
  startLegacySseMcpServer,
  type FakeMcpOptions,
  type FakeMcpServer,
  type FakeMcpTool,
} from '../helpers/fakes/mcp-servers.ts';

/** A client whose tools/list answers the given pages in turn. */
function listing(...pages: { tools: unknown[]; nextCursor?: string }[]): Client {
  let page = 0;
  return { listTools: () => Promise.resolve(pages[page++] ?? { tools: [] }) } as unknown as Client;
}
const tool = (name: string, extra: Record<string, unknown> = {}) => ({ name, inputSchema: { type: 'object' }, ...extra });
/** The credentials a server is sent, named as lib/mcp/open.ts names a header secret. */
const options = (secrets: Record<string, string> = {}) => ({
  signal: new AbortController().signal,
  timeoutMs: 1000,
  secrets: Object.entries(secrets).map(([name, value]) => [`the value of the secret ${name}`, value] as const),
});

describe('results', () => {
  it('joins text, names resources, describes media, and falls back to structured content', () => {
    expect(
      resultText({
        content: [
          { type: 'text', text: 'first' },
          { type: 'image', data: 'aGVsbG8=', mimeType: 'image/png' },
          { type: 'resource', resource: { uri: 'file:///a.txt', text: 'inside' } },
          { type: 'resource', resource: { uri: 'file:///b.bin', mimeType: 'application/zip', blob: 'AAAA' } },
          { type: 'resource_link', uri: 'https://example.com/x', name: 'x' },
        ],
      }),
    ).toBe(
      'first\n[image image/png, 5 bytes: not shown]\n[resource file:///a.txt]\ninside\n' +
        '[resource file:///b.bin application/zip, 3 bytes: not shown]\n[resource link https://example.com/x (x)]',
    );
    expect(resultText({ content: [], structuredContent: { total: 42 } })).toBe('{"total":42}');
    expect(resultText({ toolResult: { legacy: true } })).toBe('{"legacy":true}');
  });
});

describe('tool lists', () => {
  it('reads every page, cuts long descriptions and keeps schemas', async () => {
    const tools = await listRemoteTools(
      listing({ tools: [tool('a', { description: 'x'.repeat(5000) })], nextCursor: 'p2' }, { tools: [tool('b', { title: 'Bee' })] }),
      options(),
    );
    expect(tools.map((t) => t.name)).toEqual(['a', 'b']);
    expect(tools[0]!.description).toHaveLength(REMOTE_TOOL_LIMITS.descriptionChars);
    expect(tools[1]).toEqual({ name: 'b', description: 'Bee', inputSchema: { type: 'object' } });
  });

  it.each([
    ['a name models refuse', listing({ tools: [tool('has space')] }), /not one models accept/],
    [
      'a schema that is not an object schema',
      listing({ tools: [{ name: 'a', inputSchema: { type: 'string' } }] }),
      /not a JSON Schema of type "object"/,
    ],
    ['the same name twice', listing({ tools: [tool('a'), tool('a')] }), /lists the tool "a" twice/],
    [
      'too many tools',
      listing({ tools: Array.from({ length: REMOTE_TOOL_LIMITS.tools + 1 }, (_, i) => tool(`t${i}`)) }),
      /more than 128 tools/,
    ],
    [
      'endless pages',
      listing(...Array.from({ length: 20 }, (_, i) => ({ tools: [tool(`t${i}`)], nextCursor: `c${i}` }))),
      /more than 16 pages/,
    ],
    [
      'too many bytes',
      listing({ tools: Array.from({ length: 100 }, (_, i) => tool(`t${i}`, { description: 'd'.repeat(4000) })) }),
      /more than 262144/,
    ],
  ])('refuses %s', async (_what, client, reason) => {
    await expect(listRemoteTools(client, options())).rejects.toThrow(reason);
  });
});

describe('tool lists that quote a header secret', () => {
  const secret = 'tok_9f8e7d6c5b4a';
  const refusal = async (client: Client) => {
    const error = (await listRemoteTools(client, options({ TOKEN: secret })).catch((thrown: unknown) => thrown)) as Error;
    expect(error).toBeInstanceOf(Error);
    expect(error.message).not.toContain(secret);
    return error.message;
  };

  it('are refused wherever the value is: a default, a description deep in the schema, a key, a name, a later page', async () => {
    const schema = (properties: Record<string, unknown>) => ({ type: 'object', properties });
    expect(
      await refusal(listing({ tools: [tool('a', { inputSchema: schema({ q: { type: 'string', default: `Bearer ${secret}` } }) })] })),
    ).toMatch(/carries the value of the secret TOKEN \(at \/tools\/0\/inputSchema\/properties\/q\/default\)/);
    expect(
      await refusal(
        listing({
          tools: [tool('a', { inputSchema: schema({ q: { type: 'object', properties: { r: { anyOf: [{ description: secret }] } } } }) })],
        }),
      ),
    ).toMatch(/secret TOKEN \(at \/tools\/0\/inputSchema\/properties\/q\/properties\/r\/anyOf\/0\/description\)/);
    expect(await refusal(listing({ tools: [tool('a', { inputSchema: schema({ [`x-${secret}`]: { type: 'string' } }) })] }))).toMatch(
      /secret TOKEN \(at \/tools\/0\/inputSchema\/properties \(a key\)\)/,
    );
    // A valid tool name: refused as a secret, not quoted as a name.
    expect(await refusal(listing({ tools: [tool(secret)] }))).toMatch(/secret TOKEN \(at \/tools\/0\/name\)/);
    expect(await refusal(listing({ tools: [tool('a')], nextCursor: 'p2' }, { tools: [tool('b', { title: secret })] }))).toMatch(
      /\/tools\/0\/title of page 2/,
    );
  });

  it('a list without one is kept whole, and a listing nested deeper than the stack is searched', async () => {
    const tools = await listRemoteTools(
      listing({ tools: [tool('a', { description: 'tok_ but not the token' })] }),
      options({ TOKEN: secret }),
    );
    expect(tools).toEqual([{ name: 'a', description: 'tok_ but not the token', inputSchema: { type: 'object' } }]);
    let deep: unknown = secret;
    for (let depth = 0; depth < 200_000; depth++) deep = [deep];
    expect(secretInListing(deep, new Map([['TOKEN', secret]]))).toMatchObject({ name: 'TOKEN' });
    expect(secretInListing({ a: [''] }, new Map([['EMPTY', '']]))).toBeUndefined();
  });
});

describe('URLs shown to others', () => {
  it('have their query string, fragment and userinfo redacted', () => {
    expect(redactedMcpUrl('https://mcp.example.com/mcp?token=abc123456789&v=2#frag')).toBe(
      'https://mcp.example.com/mcp?[redacted]#[redacted]',
    );
    expect(redactedMcpUrl('https://user:pass@mcp.example.com:8443/mcp')).toBe('https://[redacted]@mcp.example.com:8443/mcp');
    expect(redactedMcpUrl('https://mcp.example.com/mcp')).toBe('https://mcp.example.com/mcp');
  });

  it("are masked in a server's text: whole, by query string, and by each long query value", () => {
    const mask = urlCredentialMasker('https://mcp.example.com/mcp?token=abc123456789&v=2');
    expect(mask('GET https://mcp.example.com/mcp?token=abc123456789&v=2 failed')).toBe('GET https://mcp.example.com/mcp?[redacted] failed');
    expect(mask('query token=abc123456789&v=2; the token abc123456789; v=2')).toBe('query [redacted]; the token [redacted]; v=2');
    expect(urlCredentialMasker('https://mcp.example.com/mcp')('https://mcp.example.com/mcp')).toBe('https://mcp.example.com/mcp');
  });
});

describe('headers', () => {
  const secrets = new Map([['TOKEN', { value: 's3cret', hosts: ['mcp.example.com'] }]]);
  it('fills a secret in only for a host it may go to, and names the secret, never the value, otherwise', () => {
    expect(filledHeaders({ Authorization: 'Bearer {{secrets.TOKEN}}' }, 'https://mcp.example.com/mcp', secrets)).toEqual({
      Authorization: 'Bearer s3cret',
    });
    expect(() => filledHeaders({ Authorization: 'Bearer {{secrets.TOKEN}}' }, 'https://evil.example.net/mcp', secrets)).toThrow(
      /TOKEN may be sent only to mcp.example.com, not to evil.example.net/,
    );
    expect(() => filledHeaders({ Authorization: '{{secrets.MISSING}}' }, 'https://mcp.example.com/mcp', secrets)).toThrow(/MISSING/);
  });
});

describe('idempotency keys', () => {
  it('are stable for one call and differ for another message, session or call id', () => {
    const key = toolCallIdempotencyKey('ses_1', 'msg_1', 'call_0');
    expect(key).toMatch(/^[0-9a-f]{32}$/);
    expect(toolCallIdempotencyKey('ses_1', 'msg_1', 'call_0')).toBe(key);
    expect(
      new Set([
        key,
        toolCallIdempotencyKey('ses_1', 'msg_2', 'call_0'),
        toolCallIdempotencyKey('ses_2', 'msg_1', 'call_0'),
        toolCallIdempotencyKey('ses_1', 'msg_1', 'call_1'),
      ]).size,
    ).toBe(4);
  });
});

describe('connections', () => {
  const outbound = createOutboundClient({ allowCidrs: ['127.0.0.0/8'] });
  const started: FakeMcpServer[] = [];
  afterEach(async () => {
    await Promise.all(started.splice(0).map((server) => server.close()));
  });
  const fake = async (tools: FakeMcpTool[], fakeOptions: FakeMcpOptions = {}) => {
    const server = await startFakeMcpServer(tools, fakeOptions);
    started.push(server);
    return server;
  };
  const connect = (url: string, fetch: typeof globalThis.fetch = outbound.fetch) =>
    connectMcp({ id: 'fake', url, headers: {} }, { fetch, connectTimeoutMs: 5000, maxResponseBytes: 1024 * 1024 });

  it('never open the standalone event stream, so a server answering it with `retry: 0` drives no reconnection', async () => {
    const hostile = await fake([{ name: 'a' }], { retryZeroStream: true, slowPages: { count: 1, delayMs: 1000 } });
    const client = await connect(hostile.url);
    try {
      expect((await client.listTools()).tools.map((listed) => listed.name)).toEqual(['a']);
    } finally {
      await client.close();
    }
    expect(hostile.methods.filter((method) => method === 'GET')).toEqual([]);
    // initialize, notifications/initialized, tools/list.
    expect(hostile.methods).toEqual(['POST', 'POST', 'POST']);
  });

  it('a listing of more servers than MCP_LISTINGS_PER_USER takes that many places and lists them all, that many at a time', async () => {
    const servers = await Promise.all([0, 1, 2].map(() => fake([{ name: 'slow' }], { slowPages: { count: 1, delayMs: 300 } })));
    const config = {
      outbound: { allowCidrs: ['127.0.0.0/8'] },
      mcp: { listingsPerUser: 2, listTimeoutMs: 10_000, connectTimeoutMs: 5000, resultMaxBytes: 1024 * 1024 },
    } as unknown as Config;
    // No header names a secret: nothing is read from the database.
    const read = registeredToolsReader({ db: undefined as never, config, masterKeys: [] });
    const listing = read(
      'usr_1',
      servers.map((server, index) => ({ id: `s${index}`, url: server.url, headers: {} })),
    );
    await expect(read('usr_1', [{ id: 's0', url: servers[0]!.url, headers: {} }])).rejects.toBeInstanceOf(RateLimitedError);
    expect((await read('usr_2', [{ id: 's0', url: servers[0]!.url, headers: {} }]))[0]).toHaveProperty('tools');
    expect((await listing).map((listed) => ('tools' in listed ? listed.tools.map((tool) => tool.name) : listed.error))).toEqual([
      ['slow'],
      ['slow'],
      ['slow'],
    ]);
    expect((await read('usr_1', [{ id: 's0', url: servers[0]!.url, headers: {} }]))[0]).toHaveProperty('tools');
  });

  it('open the older HTTP+SSE stream once: a server ending it with `retry: 0` is not reconnected to', async () => {
    const hostile = await startLegacySseMcpServer([{ name: 'a' }], { retryZeroStream: true });
    started.push(hostile);
    const connecting = connectMcp(
      { id: 'fake', url: hostile.url, headers: {} },
      { fetch: outbound.fetch, connectTimeoutMs: 1500, maxResponseBytes: 1024 * 1024 },
    );
    // Its endpoint never answers: the connection waits out its deadline, time enough for any reconnection.
    await expect(connecting).rejects.toThrow();
    expect(hostile.methods.filter((method) => method === 'GET')).toEqual(['GET']);
  });

  it("follow a redirect within the URL's origin, each hop through the guarded fetch; refuse one to another origin", async () => {
    const server = await fake([{ name: 'a' }], { redirect: { from: '/old', to: '/mcp' } });
    const origin = new URL(server.url).origin;
    const hops: string[] = [];
    const recorded: typeof globalThis.fetch = (input, init) => {
      hops.push(`${init?.method ?? 'GET'} ${String(input instanceof Request ? input.url : input)}`);
      return outbound.fetch(input, init);
    };
    const client = await connect(`${origin}/old`, recorded);
    await client.close();
    expect(hops.slice(0, 2)).toEqual([`POST ${origin}/old`, `POST ${origin}/mcp`]);

    const elsewhere = await fake([{ name: 'a' }], { redirect: { from: '/old', to: server.url.replace('127.0.0.1', 'localhost') } });
    const before = server.requests.length;
    const refused = await connect(`${new URL(elsewhere.url).origin}/old`).catch((error: unknown) => error);
    expect(mcpErrorText(refused)).toMatch(/HTTP 307, a redirect that is not followed/);
    expect(server.requests).toHaveLength(before);
  });
});
