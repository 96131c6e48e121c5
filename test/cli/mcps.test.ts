// `mcps ls|add|show|rm` of the built binary against the real API and a fake MCP server: built-in and
// remote servers told apart, headers given as 'Name: value' (a literal credential warned about), the
// check that connects and lists the tools, the failures a person meets, and a server's text printed as
// text, never as the terminal escape sequences it may hold.
import { afterAll, beforeAll, describe, expect, onTestFinished, vi } from 'vitest';
import { apiTest } from '../helpers/harness/fixtures.ts';
import { startFakeMcpServer, type FakeMcpServer } from '../helpers/fakes/mcp-servers.ts';
import { ensureBuilt, loginWith, newConfigDir, runCli } from './run-cli.ts';

const test = apiTest({ OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8' });
// A test here runs the binary eight to ten times, each a node process: more than the default
// timeout allows a machine loaded with the whole suite.
vi.setConfig({ testTimeout: 90_000 });

let server: FakeMcpServer;
let goneUrl: string;
beforeAll(async () => {
  ensureBuilt();
  server = await startFakeMcpServer([
    { name: 'lookup_ticket', description: 'Find a ticket by its number\nand show its state' },
    { name: 'close_ticket', description: 'Close a ticket' },
  ]);
  const gone = await startFakeMcpServer([]);
  goneUrl = gone.url;
  await gone.close();
});
afterAll(() => server?.close());

interface Listed {
  id: string;
  kind: 'builtin' | 'remote';
  headerNames?: string[];
}

describe('mcps', () => {
  test('add with headers and a description, ls marks built-in and remote, show lists the tools, rm', async ({ api, user }) => {
    const configDir = newConfigDir();
    await loginWith(configDir, api.url, user.apiKey);
    // A secret the Authorization header names, allowed for the fake's host (a person would pipe it in).
    const secret = await runCli(['secrets', 'set', 'TICKETS_TOKEN', '--host', '127.0.0.1'], { configDir, input: 'tok-cli-secret' });
    expect(secret.code, secret.stderr).toBe(0);

    const added = await runCli(
      [
        'mcps',
        'add',
        'tickets',
        server.url,
        '-H',
        'Authorization: Bearer {{secrets.TICKETS_TOKEN}}',
        '--header',
        'X-Team:support',
        '-d',
        'Ticket desk',
      ],
      { configDir },
    );
    expect(added.code, added.stderr).toBe(0);
    expect(added.stderr).toContain('Saved tickets');
    expect(added.stderr).not.toContain('warning');

    const listed = JSON.parse((await runCli(['mcps', 'ls', '--json'], { configDir })).stdout) as Listed[];
    expect(listed.find((one) => one.id === 'time')).toMatchObject({ kind: 'builtin' });
    const tickets = listed.find((one) => one.id === 'tickets');
    expect(tickets?.kind).toBe('remote');
    expect(tickets?.headerNames?.sort()).toEqual(['Authorization', 'X-Team']);
    const table = (await runCli(['mcps', 'ls'], { configDir })).stdout;
    expect(table).toMatch(/^ID\s+KIND\s+URL\s+HEADERS\s+UPDATED\s+DESCRIPTION$/m);
    expect(table).toMatch(/^time\s+built-in\s+-/m);
    expect(table).toMatch(
      new RegExp(
        `^tickets\\s+remote\\s+${server.url.replace(/[.?]/g, '\\$&')}\\s+Authorization,X-Team\\s+\\d+[smhd] ago\\s+Ticket desk$`,
        'm',
      ),
    );

    const requestsBefore = server.requests.length;
    const shown = await runCli(['mcps', 'show', 'tickets'], { configDir });
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(/^kind:\s+remote$/m);
    expect(shown.stdout).toMatch(/^headers:\s+Authorization, X-Team$/m);
    expect(shown.stdout).toContain('Tools (2)');
    // Each tool on a line, its description's first line beside it.
    expect(shown.stdout).toMatch(/^ {2}lookup_ticket {2}Find a ticket by its number$/m);
    expect(shown.stdout).toMatch(/^ {2}close_ticket {2}Close a ticket$/m);
    expect(server.requests.slice(requestsBefore).map((headers) => headers.authorization)).toContain('Bearer tok-cli-secret');
    const shownJson = JSON.parse((await runCli(['mcps', 'show', 'tickets', '--json'], { configDir })).stdout) as {
      tools: { name: string }[];
    };
    expect(shownJson.tools.map((tool) => tool.name)).toEqual(['lookup_ticket', 'close_ticket']);
    expect((await runCli(['mcps', 'show', 'time'], { configDir })).stdout).toMatch(/^kind:\s+built-in$[\s\S]*current_time/m);

    const removed = await runCli(['mcps', 'rm', 'tickets'], { configDir });
    expect(removed.code, removed.stderr).toBe(0);
    const again = await runCli(['mcps', 'rm', 'tickets'], { configDir });
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/no MCP server with the id "tickets".*\(404/);
  });

  test('a literal credential is warned about; a header without a name or given twice is a usage error', async ({ api, user }) => {
    const configDir = newConfigDir();
    await loginWith(configDir, api.url, user.apiKey);
    const literal = await runCli(['mcps', 'add', 'literal', server.url, '-H', 'Authorization: Bearer abc123'], { configDir });
    expect(literal.code, literal.stderr).toBe(0);
    expect(literal.stderr).toMatch(/warning: the Authorization header is stored as written.*\{\{secrets\.KEY\}\}/);
    expect(literal.stderr).not.toContain('abc123');
    expect((await runCli(['mcps', 'rm', 'literal'], { configDir })).code).toBe(0);

    for (const headers of [
      ['-H', 'no colon here'],
      ['-H', ': value'],
      ['-H', 'X-A: 1', '-H', 'x-a: 2'],
    ]) {
      const refused = await runCli(['mcps', 'add', 'bad', server.url, ...headers], { configDir });
      expect(refused.code, headers.join(' ')).toBe(2);
    }
    const ids = (JSON.parse((await runCli(['mcps', 'ls', '--json'], { configDir })).stdout) as Listed[]).map((one) => one.id);
    expect(ids).not.toContain('bad');

    const help = await runCli(['mcps', 'add', '--help'], { configDir });
    expect(help.stdout.replace(/\s+/g, ' ')).toContain('do not write a credential here; store it with `secrets set`');
  });

  test("the service's refusals: an invalid id, a server that cannot be reached, one that does not exist", async ({ api, user }) => {
    const configDir = newConfigDir();
    await loginWith(configDir, api.url, user.apiKey);
    const invalid = await runCli(['mcps', 'add', 'Bad Id', server.url, '--json'], { configDir });
    expect(invalid.code).toBe(1);
    expect(JSON.parse(invalid.stdout)).toMatchObject({ error: { status: 400 } });

    expect((await runCli(['mcps', 'add', 'gone', goneUrl], { configDir })).code).toBe(0);
    const unreachable = await runCli(['mcps', 'show', 'gone'], { configDir });
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr).toMatch(/error: The MCP server "gone" [\s\S]*could not be reached[\s\S]*\(502/);
    expect(unreachable.stdout).toBe('');
    expect((await runCli(['mcps', 'rm', 'gone'], { configDir })).code).toBe(0);

    const missing = await runCli(['mcps', 'show', 'nowhere', '--json'], { configDir });
    expect(missing.code).toBe(1);
    expect(JSON.parse(missing.stdout)).toMatchObject({ error: { status: 404 } });
  });

  test("a server's escape sequences and control characters are not printed: `show` and `ls` print its words only", async ({
    api,
    user,
  }) => {
    const configDir = newConfigDir();
    await loginWith(configDir, api.url, user.apiKey);
    // A window title, a screen clear, colours, a C1 CSI, a carriage return that would overwrite the line, a bell.
    const hostile = await startFakeMcpServer([
      { name: 'hostile_tool', description: '\u001b]0;pwned\u0007\u001b[2J\u001b[31mRed\u001b[0m words\u009b1m here\rX\u0007' },
    ]);
    onTestFinished(() => hostile.close());
    const added = await runCli(['mcps', 'add', 'hostile', hostile.url, '-d', 'desk\u001b[8mhidden\u001b[0m'], { configDir });
    expect(added.code, added.stderr).toBe(0);
    // eslint-disable-next-line no-control-regex -- control characters are what must not be printed
    const controls = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

    const shown = await runCli(['mcps', 'show', 'hostile'], { configDir });
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).not.toMatch(controls);
    expect(shown.stdout).toMatch(/^ {2}hostile_tool {2}Red words hereX$/m);
    expect(shown.stdout).toMatch(/^description:\s+deskhidden$/m);
    const listed = await runCli(['mcps', 'ls'], { configDir });
    expect(listed.stdout).not.toMatch(controls);
    expect(listed.stdout).toMatch(/^hostile\s+remote\s.*deskhidden$/m);
    // JSON keeps the server's text as it came, escaped.
    const json = JSON.parse((await runCli(['mcps', 'show', 'hostile', '--json'], { configDir })).stdout) as {
      tools: { description: string }[];
    };
    expect(json.tools[0]!.description).toContain('\u001b[31mRed');
    expect((await runCli(['mcps', 'rm', 'hostile'], { configDir })).code).toBe(0);
  });
});
