// Agents in the dashboard against the real service: deploying from the editor (a refused bundle's
// errors located at their lines, then fixed and deployed), the agent's page (bundle, triggers with
// a copyable URL, revisions) and the list, with its empty state for a new user.
import { expect } from 'vitest';
import { apiTest } from '../helpers/harness/fixtures.ts';
import { createTestUser } from '../helpers/harness/users.ts';
import { browserForTests, expectAccessible, openPage, screenshot, signIn } from './browser.ts';

const test = apiTest();
const browser = browserForTests();

const name = `dash-${Date.now().toString(36)}`;
const bundle = (model: string, extra = '') =>
  [
    '{',
    '  // deployed from the dashboard test',
    `  "name": "${name}",`,
    `  "model": { "providerId": "${model}", "modelId": "fake-model" },`,
    '  "instructions": "Be brief.",',
    `  "triggers": [{ "kind": "webhook", "suffix": "inbound-${name}" }],${extra}`,
    '}',
  ].join('\n');

test('a new user sees no agent and where to deploy one; an unknown address leads back', async ({ api }) => {
  const fresh = await createTestUser(api.db);
  const { page, faults, close } = await openPage(browser());
  try {
    await signIn(page, api.url, fresh.apiKey, '/app/agents');
    await page.getByText('No agent yet.').waitFor();
    await expectAccessible(page);
    await screenshot(page, 'agents-empty');
    // An address that is no page says so, with the way back.
    await page.goto(`${api.url}/app/no/such/page`);
    await page.getByRole('heading', { name: 'Nothing here' }).waitFor();
    await expectAccessible(page);
    await page.getByRole('main').getByRole('link', { name: 'agents' }).click();
    await page.getByText('No agent yet.').waitFor();
    expect(faults).toEqual([]);
  } finally {
    await close();
  }
});

test('a refused bundle shows each error at its line; fixed, it deploys and the agent page shows it', async ({ api, user }) => {
  const { page, faults, close } = await openPage(browser());
  try {
    await signIn(page, api.url, user.apiKey, '/app/agents');
    await page.getByRole('link', { name: 'Deploy an agent' }).click();
    const editor = page.getByLabel('Bundle (JSONC)');
    await expect.poll(() => editor.inputValue()).toContain('"name"');
    await editor.fill(bundle('nowhere', '\n  "colour": "blue",'));
    await page.getByRole('button', { name: 'Deploy', exact: true }).click();

    const errors = page.getByRole('region', { name: /Not deployed/ });
    await errors.waitFor();
    const listed = await errors.locator('ol.located-errors li').allTextContents();
    // The unknown property on line 7 and the provider on line 4, each where it is.
    expect(listed.some((item) => item.includes('Line 7, column 3') && item.includes('/colour'))).toBe(true);
    expect(listed.some((item) => item.includes('Line 4') && item.includes('/model/providerId'))).toBe(true);
    const notes = errors.getByRole('note');
    expect((await notes.allTextContents()).join('\n')).toContain('/colour');
    await expect.poll(() => errors.getByRole('alert').textContent()).toMatch(/Trace id: [0-9a-f]{32}/);
    await expectAccessible(page);
    await page.evaluate("document.getElementById('deploy-errors').scrollIntoView()");
    await screenshot(page, 'deploy-errors');

    // The error's button puts the cursor at the unknown property.
    await errors.getByRole('button', { name: 'Line 7, column 3' }).click();
    const cursor = await editor.evaluate((area) => {
      const { value, selectionStart } = area as unknown as { value: string; selectionStart: number };
      return value.slice(selectionStart, selectionStart + 8);
    });
    expect(cursor).toBe('"colour"');

    await editor.fill(bundle('openai-compatible'));
    await page.getByRole('button', { name: 'Deploy', exact: true }).click();
    await page.getByText('Deployed revision 1').waitFor();
    await page.getByRole('button', { name: `Open ${name}` }).click();

    await page.getByRole('heading', { name, level: 1 }).waitFor();
    const triggers = page.getByRole('region', { name: 'Triggers' });
    const url = `${api.url}/trigger/${user.userId}/`;
    await expect.poll(() => triggers.textContent()).toContain(url);
    await triggers.getByRole('button', { name: 'Copy the URL of trigger 1' }).click();
    await triggers.getByText('Copied', { exact: true }).waitFor();
    expect(await page.evaluate<string>('navigator.clipboard.readText()')).toMatch(new RegExp(`/inbound-${name}$`));
    // Where MCP clients reach it.
    const connect = page.getByRole('region', { name: 'Connect' });
    await expect.poll(() => connect.textContent()).toContain(`${api.url}/agent/${name}/mcp`);
    await connect.getByRole('button', { name: 'Copy the MCP server URL' }).click();
    await connect.getByText('Copied', { exact: true }).waitFor();
    expect(await page.evaluate<string>('navigator.clipboard.readText()')).toBe(`${api.url}/agent/${name}/mcp`);
    expect(await connect.textContent()).toContain(`${api.url}/agent/${name}/a2a/`);
    const shown = page.getByRole('region', { name: `Bundle of ${name}` });
    expect(await shown.locator('.tok-key', { hasText: '"instructions"' }).count()).toBe(1);
    expect(await shown.locator('.tok-string', { hasText: '"Be brief."' }).count()).toBe(1);
    await expectAccessible(page);
    await screenshot(page, 'agent');

    // A new revision from the editor, which starts from the current bundle; then the two compared.
    await page.getByRole('link', { name: 'Deploy a new revision' }).click();
    await expect.poll(() => editor.inputValue()).toContain('"instructions": "Be brief."');
    await editor.fill((await editor.inputValue()).replace('"Be brief."', '"Be very brief."'));
    await page.getByRole('button', { name: 'Deploy', exact: true }).click();
    await page.getByText('Deployed revision 2').waitFor();
    await page.getByRole('button', { name: `Open ${name}` }).click();
    const diff = page.getByRole('region', { name: 'Changes from revision 1 to 2' });
    await expect.poll(() => diff.locator('.diff-removed').allTextContents()).toEqual(['removed: −   "instructions": "Be brief.",']);
    expect(await diff.locator('.diff-added').allTextContents()).toEqual(['added: +   "instructions": "Be very brief.",']);
    await page.getByRole('button', { name: 'Show revision 1' }).click();
    await expect.poll(() => page.getByRole('region', { name: 'Bundle of revision 1' }).textContent()).toContain('"Be brief."');
    await page.getByRole('region', { name: 'Compare revisions' }).scrollIntoViewIfNeeded();
    await expectAccessible(page);
    await screenshot(page, 'agent-revisions');

    await page.getByRole('link', { name: 'Agents', exact: true }).click();
    await page.getByRole('link', { name }).waitFor();
    await screenshot(page, 'agents');

    // Deleted from its page (after the browser's confirmation), it leaves the list.
    await page.getByRole('link', { name }).click();
    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('button', { name: 'Delete agent' }).click();
    await page.getByRole('heading', { name: 'Agents', level: 1 }).waitFor();
    await page.getByRole('link', { name }).waitFor({ state: 'detached' });
    expect(faults).toEqual([]);
  } finally {
    await close();
  }
});

test('a syntax error is located at the line and column the server names', async ({ api, user }) => {
  const { page, close } = await openPage(browser());
  try {
    await signIn(page, api.url, user.apiKey, '/app/deploy');
    const editor = page.getByLabel('Bundle (JSONC)');
    await expect.poll(() => editor.inputValue()).toContain('"name"');
    await editor.fill('{\n  "name": "x"\n  "model": {}\n}');
    await page.getByRole('button', { name: 'Deploy', exact: true }).click();
    await page.getByRole('button', { name: /^Line 3, column 3$/ }).waitFor();
  } finally {
    await close();
  }
});
