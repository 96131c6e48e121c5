// Which tools an eval may run for real when a replayed case's call matches no recorded one: the built-in
// tools that only read, and those the bundle marks (`safeTools`); a deploy refuses a mark that names a
// server the bundle does not enable, or a tool that server does not have.
import { describe, expect, it } from 'vitest';
import { validateBundle, type Bundle } from '../../lib/bundle/index.ts';
import { markedSafe, safeToRunLive } from '../../activities/tools/safe-tools.ts';
import { remoteTools } from '../../activities/tools/remote.ts';

const MODEL = { providerId: 'openai', modelId: 'gpt-4.1' };
const errorsOf = (bundle: Record<string, unknown>) => {
  const result = validateBundle(JSON.stringify({ name: 'agent', model: MODEL, ...bundle }), { existingSecretKeys: new Set() });
  return result.ok ? [] : result.errors;
};
const bundleOf = (bundle: Partial<Bundle>) => ({ mcps: [], ...bundle });

describe('tools an eval may run live', () => {
  it('are the built-in tools that only read, without a mark; writing ones need one', () => {
    const bundle = bundleOf({ mcps: ['time', 'workspace', 'memory', 'code', 'http'] });
    for (const name of ['current_time', 'list_workspace_files', 'read_workspace_file', 'recall', 'list_memories', 'run_javascript'])
      expect(safeToRunLive({ bundle }, { toolName: name }), name).toBe(true);
    for (const name of ['http_request', 'remember', 'forget']) expect(safeToRunLive({ bundle }, { toolName: name }), name).toBe(false);
    // A mark on http_request covers its GET requests only: a POST sends something, whoever marked it.
    const http = { ...bundle, safeTools: { http: ['http_request'] } };
    expect(safeToRunLive({ bundle: http }, { toolName: 'http_request', input: { url: 'https://a.example' } })).toBe(true);
    expect(safeToRunLive({ bundle: http }, { toolName: 'http_request', input: { url: 'https://a.example', method: 'GET' } })).toBe(true);
    expect(safeToRunLive({ bundle: http }, { toolName: 'http_request', input: { url: 'https://a.example', method: 'POST' } })).toBe(false);
    expect(safeToRunLive({ bundle: { ...bundle, safeTools: { memory: ['*'] } } }, { toolName: 'forget' })).toBe(true);
    expect(safeToRunLive({ bundle: { ...bundle, safeTools: { memory: ['recall'] } } }, { toolName: 'forget' })).toBe(false);
  });

  it('never include a tool the revision does not have: a server it does not enable, or no tool of that name', () => {
    expect(safeToRunLive({ bundle: bundleOf({ mcps: ['http'] }) }, { toolName: 'current_time' })).toBe(false);
    expect(safeToRunLive({ bundle: bundleOf({ mcps: ['http'], safeTools: { http: ['*'] } }) }, { toolName: 'nope' })).toBe(false);
    expect(safeToRunLive({ bundle: bundleOf({ mcps: ['time'] }) }, { toolName: 'load_skill' })).toBe(false);
    const skills = [{ name: 'style', description: 'd', text: 't' }] as never;
    expect(safeToRunLive({ bundle: bundleOf({ mcps: ['time'] }), skills }, { toolName: 'load_skill' })).toBe(true);
  });

  it("take a remote MCP server's tool only when the bundle marks it", () => {
    const tool = (name: string) => ({ name, description: 'd', inputSchema: { type: 'object' } });
    const remote = remoteTools({ crm: [tool('lookup'), tool('delete_contact')] });
    const bundle = bundleOf({ mcps: ['crm'] });
    expect(safeToRunLive({ bundle, remoteTools: remote }, { toolName: 'lookup' })).toBe(false);
    expect(safeToRunLive({ bundle: { ...bundle, safeTools: { crm: ['lookup'] } }, remoteTools: remote }, { toolName: 'lookup' })).toBe(
      true,
    );
    expect(
      safeToRunLive({ bundle: { ...bundle, safeTools: { crm: ['lookup'] } }, remoteTools: remote }, { toolName: 'delete_contact' }),
    ).toBe(false);
  });

  it('read marks by own keys only', () => {
    expect(markedSafe({ http: ['*'] }, 'constructor', 'x')).toBe(false);
    expect(markedSafe(undefined, 'http', 'http_request')).toBe(false);
  });
});

describe("a bundle's safeTools", () => {
  it('is refused, at its place, for a server the bundle does not enable or a built-in tool that server lacks', () => {
    expect(errorsOf({ mcps: ['http', 'memory'], safeTools: { http: ['http_request'], memory: ['*', 'recall'] } })).toEqual([]);
    expect(errorsOf({ mcps: ['http'], safeTools: { time: ['current_time'], http: ['http_request', 'fetch'] } })).toEqual([
      { path: '/safeTools/time', message: 'names the tool server "time", which mcps does not enable' },
      {
        path: '/safeTools/http/1',
        message: 'the tool server "http" has no tool "fetch"; its tools: http_request, or "*"',
      },
    ]);
    expect(errorsOf({ mcps: ['http'], safeTools: { http: [] } }).map((error) => error.path)).toEqual(['/safeTools/http']);
  });
});
