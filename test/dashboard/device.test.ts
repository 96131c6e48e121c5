// A CLI login through the device flow: the program asks for a code, the person opens the page it
// names, signs in, sees what is asked and approves; the program's next poll gets a working key.
// A denied request gives the program access_denied.
import { expect } from 'vitest';
import { Client, DeviceTokenError } from '../../sdk/src/index.ts';
import { apiTest } from '../helpers/harness/fixtures.ts';
import { browserForTests, expectAccessible, openPage, screenshot } from './browser.ts';

const test = apiTest();
const browser = browserForTests();

test('a device login opened from its link, signed in, approved: the program gets a key that works', async ({ api, user }) => {
  const device = new Client({ baseUrl: api.url });
  const code = await device.device.requestCode({ clientName: 'agent-service CLI on build-box', scopes: ['read', 'agents:write'] });
  expect(new URL(code.verificationUriComplete).pathname).toBe('/app/device');
  const { page, faults, close } = await openPage(browser());
  try {
    await page.goto(`${api.url}${new URL(code.verificationUriComplete).pathname}${new URL(code.verificationUriComplete).search}`);
    await page.getByRole('heading', { name: 'Sign in to approve a device login' }).waitFor();
    await page.getByLabel('API key').fill(user.apiKey);
    await page.getByRole('button', { name: 'Sign in' }).click();

    const request = page.getByRole('region', { name: new RegExp(code.userCode) });
    await expect.poll(() => request.textContent()).toContain('agent-service CLI on build-box');
    expect(await request.textContent()).toContain('agents:write');
    expect(await request.textContent()).toMatch(/min left/);
    // Where and when the login was asked from, so a code read out by someone else stands out.
    expect(await request.textContent()).toMatch(/Askedfrom \S+, at \S/);
    await expectAccessible(page);
    await screenshot(page, 'device-pending');

    await expect(device.device.pollToken(code.deviceCode)).rejects.toMatchObject({ error: 'authorization_pending' });
    await page.getByRole('button', { name: 'Approve' }).click();
    await page.getByText('Approved: the program signs in').waitFor();
    await screenshot(page, 'device-approved');

    const minted = await device.device.pollToken(code.deviceCode);
    expect(minted.scopes.sort()).toEqual(['agents:write', 'read']);
    const { agents } = await new Client({ baseUrl: api.url, apiKey: minted.key }).agents.list();
    expect(agents).toEqual([]);
    expect(faults).toEqual([]);
  } finally {
    await close();
  }
});

test('a denied device login gives the program access_denied; an unknown code is a problem with its trace id', async ({ api, user }) => {
  const device = new Client({ baseUrl: api.url });
  const code = await device.device.requestCode({ clientName: 'someone else' });
  const { page, faults, close } = await openPage(browser());
  try {
    await page.goto(`${api.url}/app/device`);
    await page.getByLabel('API key').fill(user.apiKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    // Typed in by hand, lower case and all.
    await page.getByLabel('Code').fill(code.userCode.toLowerCase());
    await page.getByRole('button', { name: 'Look up' }).click();
    await page.getByRole('button', { name: 'Deny' }).click();
    await page.getByText('Denied: the program was told no.').waitFor();
    const refused = await device.device.pollToken(code.deviceCode).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(DeviceTokenError);
    expect((refused as DeviceTokenError).error).toBe('access_denied');

    await page.goto(`${api.url}/app/device?code=BCDF-GHJK`);
    await expect.poll(() => page.getByRole('alert').textContent()).toMatch(/Trace id: [0-9a-f]{32}/);
    await expectAccessible(page);
    expect(faults).toEqual([]);
  } finally {
    await close();
  }
});
