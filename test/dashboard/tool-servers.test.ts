// The Tool servers page against the real service and a fake MCP server: built-in and remote servers
// told apart, one registered with header rows (the values never come back to the page), its check
// listing the tools, a server that cannot be reached shown as the service's problem, and deleting; and
// one that signs in with OAuth (the official SDK's auth router as its authorization server): Connect
// signs in in a new tab, the page follows until it is connected, Disconnect signs out.
import { createServer, request as httpRequest, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect } from 'vitest';
import { Client } from '../../sdk/src/index.ts';
import { apiTest } from '../helpers/harness/fixtures.ts';
import { startFakeMcpServer, type FakeMcpServer } from '../helpers/fakes/mcp-servers.ts';
import { startOAuthMcpServer, type OAuthMcpServer } from '../helpers/fakes/oauth-mcp-server.ts';
import { closeServer } from '../helpers/fakes/recorded.ts';
import { browserForTests, expectAccessible, openPage, screenshot, signIn } from './browser.ts';

const test = apiTest({ OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8' });
const browser = browserForTests();

let server: FakeMcpServer;
let oauthServer: OAuthMcpServer;
/**
 * A door in front of the fake server: shut, it answers 503 as a server that is down would; open, it
 * passes each request on. The unreachable server can then come back at the same URL.
 */
let door: HttpServer;
let doorOpen = false;
let doorUrl: string;
beforeAll(async () => {
  server = await startFakeMcpServer([
    { name: 'lookup_ticket', description: 'Find a ticket by its number' },
    { name: 'close_ticket', description: 'Close a ticket' },
  ]);
  door = createServer((req, res) => {
    if (!doorOpen) return void res.writeHead(503).end();
    const onward = httpRequest(server.url, { method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode!, answer.headers);
      answer.pipe(res);
    });
    req.pipe(onward);
  });
  await new Promise<void>((resolve) => door.listen(0, '127.0.0.1', resolve));
  doorUrl = `http://127.0.0.1:${(door.address() as AddressInfo).port}/mcp`;
  oauthServer = await startOAuthMcpServer();
});
afterAll(async () => {
  await server?.close();
  await oauthServer?.close();
  await closeServer(door);
});

test('register a remote server with header rows, check its tools, and delete it', async ({ api, user }) => {
  const owner = new Client({ baseUrl: api.url, apiKey: user.apiKey });
  await owner.secrets.put('TICKETS_TOKEN', 'tok-dashboard-secret', { hosts: ['127.0.0.1'] });
  const literal = `literal-${Date.now()}-never-shown`;
  const { page, faults, close } = await openPage(browser());
  try {
    await signIn(page, api.url, user.apiKey);
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Tool servers' }).click();
    await page.getByRole('heading', { name: 'Tool servers', level: 1 }).waitFor();
    await page.getByText('No remote MCP server registered.').waitFor();
    const builtIn = page.getByRole('listitem').filter({ has: page.locator('code', { hasText: /^time$/ }) });
    expect(await builtIn.textContent()).toContain('built-in');
    await builtIn.getByRole('button', { name: 'Show tools time' }).click();
    await builtIn.getByRole('cell', { name: 'current_time' }).waitFor();
    await expectAccessible(page);

    await page.getByLabel('Id', { exact: true }).fill('tickets');
    await page.getByLabel('URL', { exact: true }).fill(server.url);
    await page.getByRole('button', { name: 'Add header' }).click();
    await page.getByLabel('Header 1 name').fill('Authorization');
    await page.getByLabel('Header 1 value').fill('Bearer {{secrets.TICKETS_TOKEN}}');
    await page.getByRole('button', { name: 'Add header' }).click();
    await page.getByLabel('Header 2 name').fill('X-Team');
    await page.getByLabel('Header 2 value').fill(literal);
    // A third row, removed again: only the two left are sent.
    await page.getByRole('button', { name: 'Add header' }).click();
    await page.getByLabel('Header 3 name').fill('X-Dropped');
    await page.getByRole('button', { name: 'Remove header 3' }).click();
    await page.getByLabel('Description (optional)').fill('The ticket desk');
    await expectAccessible(page);
    await page.getByRole('button', { name: 'Save server' }).click();
    await page.getByText('Saved tickets.').waitFor();

    const card = page.getByRole('listitem').filter({ has: page.locator('code', { hasText: /^tickets$/ }) });
    await card.waitFor();
    const shown = (await card.textContent())!;
    expect(shown).toContain('remote');
    expect(shown).toContain(server.url);
    expect(shown).toContain('Authorization, X-Team');
    expect(shown).toContain('The ticket desk');
    expect(await page.getByLabel('Header 1 name').count()).toBe(0);
    expect(await page.content()).not.toContain(literal);
    const stored = (await owner.mcps.list()).find((one) => one.id === 'tickets');
    expect(stored).toMatchObject({ kind: 'remote', url: server.url });
    expect(stored?.kind === 'remote' && stored.headerNames.sort()).toEqual(['Authorization', 'X-Team']);

    const requestsBefore = server.requests.length;
    await card.getByRole('button', { name: 'Check tickets' }).click();
    const tools = card.getByRole('table', { name: 'Tools of tickets' });
    await tools.waitFor();
    expect(await tools.getByRole('row').allTextContents()).toEqual([
      'ToolDescription',
      'lookup_ticketFind a ticket by its number',
      'close_ticketClose a ticket',
    ]);
    const sent = server.requests.slice(requestsBefore);
    expect(sent.map((headers) => headers.authorization)).toContain('Bearer tok-dashboard-secret');
    expect(sent.every((headers) => headers['x-team'] === literal && headers['x-dropped'] === undefined)).toBe(true);
    await expectAccessible(page);
    await screenshot(page, 'tool-servers');

    page.once('dialog', (dialog) => void dialog.accept());
    await card.getByRole('button', { name: 'Delete tool server tickets' }).click();
    await page.getByText('No remote MCP server registered.').waitFor();
    expect((await owner.mcps.list()).some((one) => one.id === 'tickets')).toBe(false);
    expect(faults).toEqual([]);
  } finally {
    await close();
  }
});

test("a server that cannot be reached: the check shows the service's problem, and checks again on demand", async ({ api, user }) => {
  const owner = new Client({ baseUrl: api.url, apiKey: user.apiKey });
  await owner.mcps.put('gone', { url: doorUrl });
  const { page, faults, close } = await openPage(browser());
  try {
    await signIn(page, api.url, user.apiKey, '/app/tool-servers');
    const card = page.getByRole('listitem').filter({ has: page.locator('code', { hasText: /^gone$/ }) });
    await card.getByRole('button', { name: 'Check gone' }).click();
    const alert = card.getByRole('alert');
    await expect.poll(() => alert.textContent()).toContain('The remote MCP server could not be reached');
    expect(await alert.textContent()).toContain('"gone"');
    await expectAccessible(page);
    await screenshot(page, 'tool-servers-unreachable');

    // The server is back at the same URL: checking again shows its tools in place of the problem.
    doorOpen = true;
    await card.getByRole('button', { name: 'Check again' }).click();
    await card.getByRole('cell', { name: 'lookup_ticket' }).waitFor();
    expect(await alert.count()).toBe(0);

    // An id the service refuses: its problem is shown and nothing is listed.
    await page.getByLabel('Id', { exact: true }).fill('Not An Id');
    await page.getByLabel('URL', { exact: true }).fill(server.url);
    await page.getByRole('button', { name: 'Save server' }).click();
    await expect.poll(() => page.getByRole('alert').first().textContent()).toContain('tool server id');
    expect((await owner.mcps.list()).map((one) => one.id)).not.toContain('Not An Id');
    expect(faults).toEqual([]);
  } finally {
    await close();
  }
});

test('a server that signs in with OAuth: Connect signs in in a new tab, the page shows it connected, Disconnect signs out', async ({
  api,
  user,
}) => {
  const owner = new Client({ baseUrl: api.url, apiKey: user.apiKey });
  const connectionOf = async (id: string) => {
    const found = (await owner.mcps.list()).find((one) => one.id === id);
    return found?.kind === 'remote' ? found.connection : undefined;
  };
  const { page, faults, close } = await openPage(browser());
  try {
    await signIn(page, api.url, user.apiKey, '/app/tool-servers');
    await page.getByLabel('Id', { exact: true }).fill('desk');
    await page.getByLabel('URL', { exact: true }).fill(oauthServer.url);
    await page.getByLabel('Sign in with OAuth').check();
    await page.getByLabel('Scopes (optional, separated by spaces)').fill('tickets:read');
    await expectAccessible(page);
    await page.getByRole('button', { name: 'Save server' }).click();
    await page.getByText('Saved desk. Connect to it below to sign in.').waitFor();
    const stored = (await owner.mcps.list()).find((one) => one.id === 'desk');
    expect(stored?.kind === 'remote' && stored.auth).toEqual({ type: 'oauth', scopes: ['tickets:read'] });

    const card = page.getByRole('listitem').filter({ has: page.locator('code', { hasText: /^desk$/ }) });
    await card.getByText('Not connected', { exact: true }).waitFor();
    expect(await card.textContent()).toContain('OAuth, client registered by the service');
    expect(await card.getByRole('button', { name: 'Disconnect desk' }).count()).toBe(0);
    await expectAccessible(page);

    // Connect: the sign-in opens in a new tab; the authorization server sends it straight back to the callback.
    oauthServer.signInAs('person-dashboard');
    const [tab] = await Promise.all([
      page.context().waitForEvent('page'),
      card.getByRole('button', { name: 'Connect desk', exact: true }).click(),
    ]);
    await tab.getByText('Connected to “desk”').waitFor();
    expect(new URL(tab.url()).pathname).toBe('/mcp-oauth/callback');
    // The sign-in tab cannot reach back into the dashboard.
    expect(await tab.evaluate('window.opener')).toBeNull();
    await tab.close();

    // The page follows the sign-in it started, with no reload.
    await card.getByText('Connected', { exact: true }).waitFor();
    await page.getByText('Connected to desk.').waitFor();
    expect(await connectionOf('desk')).toMatchObject({ status: 'connected', scopes: ['tickets:read'] });
    expect(await card.getByRole('button', { name: 'Connect desk', exact: true }).count()).toBe(0);
    expect(await card.textContent()).toContain('tickets:read');
    for (const token of oauthServer.accessTokens()) expect(await page.content()).not.toContain(token);
    await expectAccessible(page);
    await screenshot(page, 'tool-servers-oauth-connected');

    // Disconnect asks first: dismissed, nothing happens.
    page.once('dialog', (dialog) => void dialog.dismiss());
    await card.getByRole('button', { name: 'Disconnect desk' }).click();
    expect(await connectionOf('desk')).toMatchObject({ status: 'connected' });

    const revokedBefore = oauthServer.revoked.length;
    page.once('dialog', (dialog) => void dialog.accept());
    await card.getByRole('button', { name: 'Disconnect desk' }).click();
    await page.getByText('Signed out of desk; its authorization server confirmed the revocation.').waitFor();
    await card.getByText('Not connected', { exact: true }).waitFor();
    await card.getByRole('button', { name: 'Connect desk', exact: true }).waitFor();
    expect(await connectionOf('desk')).toMatchObject({ status: 'not-connected' });
    expect(oauthServer.revoked.length).toBeGreaterThan(revokedBefore);
    expect(faults).toEqual([]);
  } finally {
    await close();
    await owner.mcps.delete('desk').catch(() => undefined);
  }
});
