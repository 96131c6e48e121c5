// Keys, secrets and webhooks in the dashboard against the real service: a new key shown once (and
// working, with the scopes chosen), deleted (then refused); a secret set whose value never comes
// back, to the page or over the wire (its hosts do); a webhook whose signing secret is shown once.
import { expect } from 'vitest';
import { AuthenticationError, Client, PermissionDeniedError } from '../../sdk/src/index.ts';
import { apiTest } from '../helpers/harness/fixtures.ts';
import { browserForTests, expectAccessible, openPage, screenshot, signIn } from './browser.ts';

const test = apiTest();
const browser = browserForTests();

test('a new key is shown once with a copy button, has the scopes chosen, and stops working once deleted', async ({ api, user }) => {
  const { page, faults, close } = await openPage(browser());
  try {
    await signIn(page, api.url, user.apiKey, '/app/keys');
    await page.getByLabel('Name').fill('ci-reader');
    for (const scope of ['agents:write', 'sessions:write', 'secrets:write', 'keys:write', 'webhooks:write', 'approvals:answer']) {
      await page.getByRole('checkbox', { name: scope }).uncheck();
    }
    await page.getByRole('button', { name: 'Create key' }).click();
    const once = page.getByRole('region', { name: 'New key' });
    const key = (await once.locator('code').textContent())!;
    expect(key).toMatch(/^sk_/);
    await once.getByRole('button', { name: 'Copy the new key' }).click();
    await once.getByText('Copied', { exact: true }).waitFor();
    expect(await page.evaluate<string>('navigator.clipboard.readText()')).toBe(key);
    await expectAccessible(page);
    await screenshot(page, 'keys-created');

    const reader = new Client({ baseUrl: api.url, apiKey: key, maxRetries: 0 });
    expect((await reader.agents.list()).agents).toEqual([]);
    await expect(reader.keys.create({ name: 'wider' })).rejects.toBeInstanceOf(PermissionDeniedError);

    await once.getByRole('button', { name: 'I have copied it' }).click();
    await once.waitFor({ state: 'detached' });
    const row = page.getByRole('row').filter({ hasText: 'ci-reader' });
    expect(await row.textContent()).toContain(key.slice(0, 6));
    expect(await page.content()).not.toContain(key);
    await page.reload();
    await row.waitFor();
    expect(await page.content()).not.toContain(key);

    page.once('dialog', (dialog) => void dialog.accept());
    await row.getByRole('button', { name: 'Delete key ci-reader' }).click();
    await row.waitFor({ state: 'detached' });
    await expect(reader.agents.list()).rejects.toBeInstanceOf(AuthenticationError);
    await screenshot(page, 'keys');
    expect(faults).toEqual([]);
  } finally {
    await close();
  }
});

test('a secret is set and listed, and its value never comes back to the page or over the wire', async ({ api, user }) => {
  const value = `value-${Date.now()}-never-shown`;
  const { page, faults, close } = await openPage(browser());
  // Every answer of /secret the page read (a body the browser already dropped at a reload is skipped;
  // at least the PUT's and the lists' are read).
  const bodies: string[] = [];
  page.on('response', (response) => {
    if (!new URL(response.url()).pathname.startsWith('/secret') || response.status() === 204) return;
    response.text().then(
      (text) => bodies.push(text),
      () => undefined,
    );
  });
  try {
    await signIn(page, api.url, user.apiKey, '/app/secrets');
    await page.getByText('No secret stored.').waitFor();
    await expectAccessible(page);
    await page.getByLabel('Name').fill('HELPDESK_TOKEN');
    await page.getByLabel('Value').fill(value);
    await page.getByLabel('Hosts (optional)').fill('api.github.com, *.Example.com');
    expect(await page.getByLabel('Value').getAttribute('type')).toBe('password');
    await page.getByRole('button', { name: 'Save secret' }).click();
    await page.getByText('Stored HELPDESK_TOKEN.').waitFor();
    const row = page.getByRole('row').filter({ hasText: 'HELPDESK_TOKEN' });
    expect(await row.textContent()).toContain('hidden');
    expect(await row.textContent()).toContain('api.github.com, *.example.com');
    expect(await page.getByLabel('Value').inputValue()).toBe('');
    expect(await page.content()).not.toContain(value);
    await expectAccessible(page);
    await screenshot(page, 'secrets');
    await page.reload();
    await row.waitFor();
    expect(await page.content()).not.toContain(value);
    expect(bodies.length).toBeGreaterThanOrEqual(2);
    expect(bodies.join('\n')).not.toContain(value);

    page.once('dialog', (dialog) => void dialog.accept());
    await row.getByRole('button', { name: 'Delete secret HELPDESK_TOKEN' }).click();
    await page.getByText('No secret stored.').waitFor();
    expect(faults).toEqual([]);
  } finally {
    await close();
  }
});

test("a webhook's signing secret is shown once; its deliveries say when there are none", async ({ api, user }) => {
  const { page, faults, close } = await openPage(browser());
  try {
    await signIn(page, api.url, user.apiKey, '/app/webhooks');
    await page.getByText('No webhook.').waitFor();
    await page.getByLabel('Receiver URL').fill('https://example.com/hooks/agent-service');
    await page.getByRole('checkbox', { name: 'trigger.fired' }).check();
    await page.getByRole('button', { name: 'Create webhook' }).click();
    const once = page.getByRole('region', { name: 'New signing secret' });
    const secret = (await once.locator('code').textContent())!;
    expect(secret).toMatch(/^whsec_/);
    const card = page.getByRole('listitem').filter({ hasText: 'https://example.com/hooks/agent-service' });
    await expect.poll(() => card.textContent()).toContain('trigger.fired');
    await card.getByRole('button', { name: 'Show deliveries' }).click();
    await card.getByText('Nothing delivered yet.').waitFor();
    await expectAccessible(page);
    await screenshot(page, 'webhooks');
    await once.getByRole('button', { name: 'I have copied it' }).click();
    expect(await page.content()).not.toContain(secret);
    const { webhooks } = await new Client({ baseUrl: api.url, apiKey: user.apiKey }).webhooks.list();
    expect(webhooks.map((webhook) => webhook.events.sort())).toEqual([['approval.requested', 'session.completed', 'trigger.fired']]);
    expect(faults).toEqual([]);
  } finally {
    await close();
  }
});

test('a key deleted while signed in with it: the page says so and leads back to sign-in', async ({ api, user }) => {
  const owner = new Client({ baseUrl: api.url, apiKey: user.apiKey });
  const doomed = await owner.keys.create({ name: 'soon-gone' });
  const { page, close } = await openPage(browser());
  try {
    await signIn(page, api.url, doomed.key, '/app/secrets');
    await owner.keys.delete(doomed.id);
    await page.getByRole('link', { name: 'Keys' }).click();
    const alert = page.getByRole('alert');
    await expect.poll(() => alert.textContent()).toContain('Your key is no longer accepted.');
    await alert.getByRole('button', { name: 'Sign in again' }).click();
    await page.getByLabel('API key').waitFor();
    expect(await page.evaluate<string[]>('Object.values(sessionStorage)')).not.toContain(doomed.key);
  } finally {
    await close();
  }
});
