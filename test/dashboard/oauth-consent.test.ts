// An MCP client's OAuth sign-in as its user meets it: the authorization URL leads to the dashboard's
// consent page, which asks to sign in, then names the client, the scopes and where it goes back; Allow
// sends the browser to the client's redirect URI with a code, which the client exchanges for a grant.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, onTestFinished } from 'vitest';
import { createHash, randomBytes } from 'node:crypto';
import { apiTest } from '../helpers/harness/fixtures.ts';
import { call } from '../helpers/client/request.ts';
import { browserForTests, expectAccessible, openPage, screenshot } from './browser.ts';

const test = apiTest({ OAUTH_CLIENT_DOCUMENT_ALLOW_CIDRS: '127.0.0.0/8' });
const browser = browserForTests();
const REDIRECT = 'http://127.0.0.1:9/callback';

test('the consent page: signed in, it shows the client and its scopes; Allow goes back with a code that the client exchanges', async ({
  api,
  user,
}) => {
  const deployed = await call<{ ok: boolean }>(`${api.url}/deploy`, {
    headers: user.auth,
    json: { name: 'helper', model: { providerId: 'openai-compatible', modelId: 'fake-model' } },
  });
  expect(deployed.body.ok).toBe(true);
  const registered = await call<{ client_id: string }>(`${api.url}/oauth/register`, {
    json: { client_name: 'Cursor on my laptop', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' },
  });
  expect(registered.status).toBe(201);
  const verifier = randomBytes(32).toString('base64url');
  const authorize = new URL(`${api.url}/oauth/authorize`);
  for (const [name, value] of Object.entries({
    response_type: 'code',
    client_id: registered.body.client_id,
    redirect_uri: REDIRECT,
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    state: 'xyz',
    scope: 'read sessions:write',
    resource: `${api.url}/agent/helper/mcp`,
  }))
    authorize.searchParams.set(name, value);

  const { page, faults, close } = await openPage(browser());
  try {
    // The client's own page, where the browser lands with the code: answered here rather than reached.
    let landed: URL | undefined;
    await page.route(`${REDIRECT}**`, async (route) => {
      landed = new URL(route.request().url());
      await route.fulfill({ status: 200, contentType: 'text/html', body: '<title>Signed in</title><main>You may close this tab.</main>' });
    });
    await page.goto(authorize.toString());
    await page.getByRole('heading', { name: 'Sign in to allow an MCP client' }).waitFor();
    await page.getByLabel('API key').fill(user.apiKey);
    await page.getByRole('button', { name: 'Sign in' }).click();

    const request = page.getByRole('region', { name: 'Cursor on my laptop' });
    await expect.poll(() => request.textContent()).toContain('sessions:write');
    expect(await request.textContent()).toContain('127.0.0.1:9');
    expect(await request.textContent()).toContain('/agent/helper/mcp');
    // A registered client's ID names no host that could vouch for it: no publisher is shown.
    expect(await request.textContent()).not.toContain('Published by');
    await expectAccessible(page);
    await screenshot(page, 'oauth-consent');

    await page.getByRole('button', { name: 'Allow' }).click();
    await expect.poll(() => landed?.searchParams.get('state')).toBe('xyz');
    const code = landed!.searchParams.get('code')!;
    const token = await fetch(`${api.url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code,
        code_verifier: verifier,
        redirect_uri: REDIRECT,
        client_id: registered.body.client_id,
      }),
    });
    expect(token.status).toBe(200);
    expect(await token.json()).toMatchObject({ token_type: 'bearer', scope: 'read sessions:write' });
    expect(faults).toEqual([]);
  } finally {
    await close();
  }
});

test('a client that names itself by its metadata document: the page shows the host that publishes it', async ({ api, user }) => {
  const documentServer = createServer((_req, res) =>
    res
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ client_id: clientId, client_name: 'Desk app', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' })),
  );
  await new Promise<void>((resolve) => documentServer.listen(0, '127.0.0.1', resolve));
  onTestFinished(() => new Promise<void>((resolve) => documentServer.close(() => resolve())));
  const host = `127.0.0.1:${(documentServer.address() as AddressInfo).port}`;
  const clientId = `http://${host}/desk/client.json`;
  const authorize = new URL(`${api.url}/oauth/authorize`);
  for (const [name, value] of Object.entries({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT,
    code_challenge: createHash('sha256').update('v'.repeat(43)).digest('base64url'),
    code_challenge_method: 'S256',
    resource: `${api.url}/agent/helper/mcp`,
  }))
    authorize.searchParams.set(name, value);
  const { page, faults, close } = await openPage(browser());
  try {
    await page.goto(authorize.toString());
    await page.getByLabel('API key').fill(user.apiKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    const request = page.getByRole('region', { name: 'Desk app' });
    await expect.poll(() => request.textContent()).toContain('Published by');
    expect(await request.textContent()).toContain(host);
    await expectAccessible(page);
    expect(faults).toEqual([]);
  } finally {
    await close();
  }
});
