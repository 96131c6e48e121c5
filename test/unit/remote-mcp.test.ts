// What the service makes of a remote MCP server's answers, without a network: results as the model reads
// them, tool lists as a revision freezes them (and the bounds that fail a deploy), and idempotency keys.
import { describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { resultText } from '../../lib/mcp/call.ts';
import { listRemoteTools, REMOTE_TOOL_LIMITS } from '../../lib/mcp/tools.ts';
import { filledHeaders } from '../../lib/mcp/headers.ts';
import { toolCallIdempotencyKey } from '../../lib/tool-call-keys.ts';

/** A client whose tools/list answers the given pages in turn. */
function listing(...pages: { tools: unknown[]; nextCursor?: string }[]): Client {
  let page = 0;
  return { listTools: () => Promise.resolve(pages[page++] ?? { tools: [] }) } as unknown as Client;
}
const tool = (name: string, extra: Record<string, unknown> = {}) => ({ name, inputSchema: { type: 'object' }, ...extra });

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
      1000,
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
    await expect(listRemoteTools(client, 1000)).rejects.toThrow(reason);
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
