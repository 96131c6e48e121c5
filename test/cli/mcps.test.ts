// `mcps ls|add|show|rm|connect|disconnect` of the built binary against the real API and a fake MCP
// server: built-in and remote servers told apart, headers given as 'Name: value' (a literal credential
// warned about), the check that connects and lists the tools, the failures a person meets, a server's
// text printed as text, never as the terminal escape sequences it may hold, and signing in to a server
// registered with --oauth (the official SDK's auth router as its authorization server) and out again.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, onTestFinished, vi } from 'vitest';
import { apiTest } from '../helpers/harness/fixtures.ts';
import { startFakeMcpServer, type FakeMcpServer } from '../helpers/fakes/mcp-servers.ts';
import { startOAuthMcpServer, type OAuthMcpServer } from '../helpers/fakes/oauth-mcp-server.ts';
import { CLICK_HEADERS, openLink } from '../helpers/client/browser-headers.ts';
import { ensureBuilt, loginWith, newConfigDir, runCli } from './run-cli.ts';

const test = apiTest({ OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8' });
// A test here runs the binary eight to ten times, each a node process: more than the default
// timeout allows a machine loaded with the whole suite.
vi.setConfig({ testTimeout: 90_000 });

let server: FakeMcpServer;
let oauthServer: OAuthMcpServer;
let goneUrl: string;
beforeAll(async () => {
  ensureBuilt();
  oauthServer = await startOAuthMcpServer();
  server = await startFakeMcpServer([
    { name: 'lookup_ticket', description: 'Find a ticket by its number\nand show its state' },
    { name: 'close_ticket', description: 'Close a ticket' },
  ]);
  const gone = await startFakeMcpServer([]);
  goneUrl = gone.url;
  await gone.close();
});
afterAll(async () => {
  await server?.close();
  await oauthServer?.close();
});

interface Listed {
  id: string;
  kind: 'builtin' | 'remote';
  headerNames?: string[];
  auth?: { type: 'oauth'; scopes?: string[]; clientId?: string; clientSecret?: string } | null;
  connection?: { status: string; scopes: string[]; reason: string | null } | null;
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
    expect(table).toMatch(/^ID\s+KIND\s+URL\s+HEADERS\s+SIGN-IN\s+UPDATED\s+DESCRIPTION$/m);
    expect(table).toMatch(/^time\s+built-in\s+-/m);
    expect(table).toMatch(
      new RegExp(
        `^tickets\\s+remote\\s+${server.url.replace(/[.?]/g, '\\$&')}\\s+Authorization,X-Team\\s+-\\s+\\d+[smhd] ago\\s+Ticket desk$`,
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

describe('mcps with OAuth', () => {
  /** A directory with an `xdg-open` that writes the URL it is given to `opened` beside it (what --open runs on Linux). */
  function fakeOpener(): { dir: string; opened: string } {
    const dir = fs.mkdtempSync(path.join(newConfigDir(), 'bin-'));
    const script = path.join(dir, 'xdg-open');
    fs.writeFileSync(script, `#!/bin/sh\nprintf '%s\\n' "$1" > '${dir}/opened.tmp' && mv '${dir}/opened.tmp' '${dir}/opened'\n`);
    fs.chmodSync(script, 0o755);
    return { dir, opened: path.join(dir, 'opened') };
  }

  const signInOf = async (configDir: string, id: string) =>
    (JSON.parse((await runCli(['mcps', 'ls', '--json'], { configDir })).stdout) as Listed[]).find((one) => one.id === id)?.connection;

  test('add --oauth, connect prints (and --open opens) the sign-in URL, ls shows connected, disconnect revokes', async ({ api, user }) => {
    const configDir = newConfigDir();
    await loginWith(configDir, api.url, user.apiKey);
    const added = await runCli(['mcps', 'add', 'desk', oauthServer.url, '--oauth', '-d', 'Signed-in desk'], { configDir });
    expect(added.code, added.stderr).toBe(0);
    expect(added.stderr).toContain('Sign in with `agent-service mcps connect desk`');
    const notYet = (await runCli(['mcps', 'ls'], { configDir })).stdout;
    expect(notYet).toMatch(new RegExp(`^desk\\s+remote\\s+${oauthServer.url.replace(/[.?]/g, '\\$&')}\\s+-\\s+not-connected\\s+`, 'm'));
    // A server reached with its headers alone has no sign-in: `-`.
    expect(notYet).toMatch(/^time\s+built-in\s+-\s+-\s+-\s+-\s+/m);
    const listed = (JSON.parse((await runCli(['mcps', 'ls', '--json'], { configDir })).stdout) as Listed[]).find(
      (one) => one.id === 'desk',
    );
    expect(listed).toMatchObject({ auth: { type: 'oauth' }, connection: { status: 'not-connected' } });

    oauthServer.signInAs('person-cli');
    const opener = fakeOpener();
    const connect = await runCli(['mcps', 'connect', 'desk', '--open'], {
      configDir,
      env: { PATH: `${opener.dir}:${process.env.PATH ?? ''}` },
    });
    expect(connect.code, connect.stderr).toBe(0);
    expect(connect.stderr).toContain('Open this URL in a browser to sign in to desk:');
    expect(connect.stderr).toMatch(/The link expires in 15 minutes/);
    // stdout is the URL alone, for a script.
    const printed = connect.stdout.trim();
    expect(printed.split('\n')).toHaveLength(1);
    const authorizationUrl = new URL(printed);
    expect(authorizationUrl.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorizationUrl.searchParams.get('code_challenge')).toMatch(/^[\w-]{43}$/);
    expect(authorizationUrl.searchParams.get('redirect_uri')).toBe(`${api.url}/mcp-oauth/callback`);
    // --open handed the same URL to the platform's opener (detached: it may finish after the CLI).
    await expect.poll(() => fs.existsSync(opener.opened), { timeout: 10_000 }).toBe(true);
    expect(fs.readFileSync(opener.opened, 'utf8').trim()).toBe(printed);

    // The browser: the authorization server's consent sends it back to the service's callback.
    const consent = await fetch(authorizationUrl, { redirect: 'manual' });
    expect(consent.status).toBe(302);
    const landed = await openLink(consent.headers.get('location')!, CLICK_HEADERS);
    expect(landed.status).toBe(200);
    expect(landed.text).toContain('Connected to');

    expect(await signInOf(configDir, 'desk')).toMatchObject({ status: 'connected', scopes: ['tickets:read'] });
    expect((await runCli(['mcps', 'ls'], { configDir })).stdout).toMatch(
      /^desk\s+remote\s+\S+\s+-\s+connected\s+\d+[smhd] ago\s+Signed-in desk$/m,
    );
    const shown = await runCli(['mcps', 'show', 'desk'], { configDir });
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(/^auth:\s+oauth, registered by the service$/m);
    expect(shown.stdout).toMatch(/^sign-in:\s+connected$/m);
    expect(shown.stdout).toMatch(/^granted:\s+tickets:read$/m);
    expect(shown.stdout).toContain('whoami');
    const tokens = oauthServer.accessTokens();
    for (const token of tokens) expect(shown.stdout + (await runCli(['mcps', 'ls', '--json'], { configDir })).stdout).not.toContain(token);

    const revokedBefore = oauthServer.revoked.length;
    const out = await runCli(['mcps', 'disconnect', 'desk'], { configDir });
    expect(out.code, out.stderr).toBe(0);
    expect(out.stderr).toContain('Signed out of desk: the authorization server confirmed the revocation.');
    expect(oauthServer.revoked.length).toBeGreaterThan(revokedBefore);
    expect(await signInOf(configDir, 'desk')).toMatchObject({ status: 'not-connected' });
    expect((await runCli(['mcps', 'ls'], { configDir })).stdout).toMatch(/^desk\s+remote\s+\S+\s+-\s+not-connected\s+/m);

    // Signed out already: the service's 404, as every refusal is reported.
    const again = await runCli(['mcps', 'disconnect', 'desk', '--json'], { configDir });
    expect(again.code).toBe(1);
    expect(JSON.parse(again.stdout)).toMatchObject({ error: { status: 404 } });
    const againText = await runCli(['mcps', 'disconnect', 'desk'], { configDir });
    expect(againText.stderr).toMatch(/error: You are not signed in to an MCP server of yours with the id "desk" \(404/);

    // --json: the service's answer, whole; and a second sign-in works as the first.
    const json = await runCli(['mcps', 'connect', 'desk', '--json'], { configDir });
    expect(json.code, json.stderr).toBe(0);
    const started = JSON.parse(json.stdout) as { authorizationUrl: string; expiresAt: string; redirectUri: string };
    expect(started).toMatchObject({ redirectUri: `${api.url}/mcp-oauth/callback`, expiresAt: expect.any(String) });
    const second = await fetch(started.authorizationUrl, { redirect: 'manual' });
    expect((await openLink(second.headers.get('location')!, CLICK_HEADERS)).text).toContain('Connected to');
    const outJson = await runCli(['mcps', 'disconnect', 'desk', '--json'], { configDir });
    expect(JSON.parse(outJson.stdout)).toEqual({ disconnected: 'desk', revoked: true });
    expect((await runCli(['mcps', 'rm', 'desk'], { configDir })).code).toBe(0);
  });

  test('--scope, --client-id and --client-secret-ref make its auth; without --oauth they are usage errors', async ({ api, user }) => {
    const configDir = newConfigDir();
    await loginWith(configDir, api.url, user.apiKey);
    const added = await runCli(
      [
        'mcps',
        'add',
        'own-client',
        oauthServer.url,
        '--oauth',
        '--scope',
        'tickets:read',
        '--scope',
        'tickets:write',
        '--client-id',
        'desk-client',
        '--client-secret-ref',
        'DESK_CLIENT_SECRET',
        '--json',
      ],
      { configDir },
    );
    expect(added.code, added.stderr).toBe(0);
    expect((JSON.parse(added.stdout) as Listed).auth).toEqual({
      type: 'oauth',
      scopes: ['tickets:read', 'tickets:write'],
      clientId: 'desk-client',
      clientSecret: '{{secrets.DESK_CLIENT_SECRET}}',
    });
    // The reference written out is taken as well.
    const written = await runCli(
      ['mcps', 'add', 'own-client', oauthServer.url, '--oauth', '--client-id', 'c', '--client-secret-ref', '{{secrets.OTHER}}', '--json'],
      { configDir },
    );
    expect((JSON.parse(written.stdout) as Listed).auth).toEqual({ type: 'oauth', clientId: 'c', clientSecret: '{{secrets.OTHER}}' });
    const shown = await runCli(['mcps', 'ls', '--json'], { configDir });
    expect((JSON.parse(shown.stdout) as Listed[]).find((one) => one.id === 'own-client')?.connection).toMatchObject({
      status: 'not-connected',
    });

    for (const [args, message] of [
      [['--scope', 'tickets:read'], /--scope needs --oauth/],
      [['--client-id', 'c', '--client-secret-ref', 'K'], /--client-id, --client-secret-ref need --oauth/],
      [['--oauth', '--client-secret-ref', 'K'], /--client-secret-ref needs --client-id/],
      [['--oauth', '--client-id', 'c', '--client-secret-ref', 'not a key'], /takes the name of one of your secrets/],
    ] as const) {
      const refused = await runCli(['mcps', 'add', 'refused', oauthServer.url, ...args], { configDir });
      expect(refused.code, args.join(' ')).toBe(2);
      expect(refused.stderr).toMatch(message);
    }
    const ids = (JSON.parse((await runCli(['mcps', 'ls', '--json'], { configDir })).stdout) as Listed[]).map((one) => one.id);
    expect(ids).not.toContain('refused');

    // A server without auth is reached with its headers: connect is the service's 409.
    expect((await runCli(['mcps', 'add', 'plain', server.url], { configDir })).code).toBe(0);
    const plain = await runCli(['mcps', 'connect', 'plain'], { configDir });
    expect(plain.code).toBe(1);
    expect(plain.stderr).toMatch(/\(409/);
    expect(plain.stdout).toBe('');
    for (const id of ['own-client', 'plain']) expect((await runCli(['mcps', 'rm', id], { configDir })).code).toBe(0);
  });
});
