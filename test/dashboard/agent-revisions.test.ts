// What serves an agent, on its dashboard page against the real service: a staged revision's state, a
// rollback the service refuses shown as its problem, a canary's share set and ended from the Traffic
// form, Promote and Roll back (each after the browser's confirmation), and the changes they recorded
// with the key that made them; every step as the service then reads it.
import { expect } from 'vitest';
import type { Page } from 'playwright-core';
import { apiTest } from '../helpers/harness/fixtures.ts';
import { call } from '../helpers/client/request.ts';
import { browserForTests, expectAccessible, openPage, screenshot, signIn } from './browser.ts';

const test = apiTest();
const browser = browserForTests();

const FAKE_MODEL = { providerId: 'openai-compatible', modelId: 'fake-model' };

/** The State column, newest revision first. */
const states = (page: Page) =>
  page.getByRole('region', { name: 'Revisions', exact: true }).locator('tbody tr td:nth-child(2)').allTextContents();

/** The Change and Live columns of the changes, newest first. */
const changes = async (page: Page) =>
  (await page.getByRole('region', { name: 'Changes', exact: true }).locator('tbody tr').all()).map(async (row) =>
    (await row.locator('td').allTextContents()).slice(0, 3),
  );

test('promote, roll back and a canary from the agent page, each listed as a change by key', async ({ api, user }) => {
  const name = `dash-rev-${Date.now().toString(36)}`;
  const agentUrl = `${api.url}/agent/${name}`;
  for (const [instructions, query] of [
    ['First.', ''],
    ['Second.', '?stage=1'],
  ] as const) {
    const deployed = await call(`${api.url}/deploy${query}`, { headers: user.auth, json: { name, model: FAKE_MODEL, instructions } });
    expect(deployed.status, deployed.text).toBeLessThan(300);
  }
  const serving = async () => (await call<{ revision: number; traffic: Record<string, number> }>(agentUrl, { headers: user.auth })).body;

  const { page, faults, close } = await openPage(browser());
  try {
    await signIn(page, api.url, user.apiKey, `/app/agents/${name}`);
    await page.getByRole('heading', { name, level: 1 }).waitFor();
    await expect.poll(() => states(page)).toEqual(['staged', 'live']);
    expect(await page.locator('dl.facts').first().textContent()).toContain('Latest revision2 (not live)');

    // Revision 2 was never live, so there is nothing to roll back to: the service's refusal is shown.
    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('button', { name: 'Roll back', exact: true }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toMatch(/nothing to roll back to/);

    // A canary: a quarter of new sessions to the staged revision, then ended.
    const traffic = page.getByRole('region', { name: 'Traffic', exact: true });
    expect(await traffic.getByRole('status').textContent()).toBe('Revision 1 (live) gets 100% of new sessions.');
    expect(await traffic.getByLabel('Revision').inputValue()).toBe('2');
    await traffic.getByLabel('Percent').fill('25');
    await traffic.getByRole('button', { name: 'Set traffic' }).click();
    await expect.poll(() => traffic.getByRole('status').textContent()).toBe('Revision 1 (live) gets 75% of new sessions; revision 2 25%.');
    await expect.poll(() => states(page)).toEqual(['canary 25%', 'live']);
    // The refusal was about the state before this change: it is no longer shown.
    expect(await page.getByRole('alert').count()).toBe(0);
    expect(await serving()).toMatchObject({ revision: 1, traffic: { 2: 25 } });
    await page.getByRole('region', { name: 'Traffic', exact: true }).scrollIntoViewIfNeeded();
    await expectAccessible(page);
    await screenshot(page, 'agent-canary');
    await traffic.getByRole('button', { name: 'End canary' }).click();
    await expect.poll(() => traffic.getByRole('status').textContent()).toBe('Revision 1 (live) gets 100% of new sessions.');
    await traffic.getByRole('button', { name: 'End canary' }).waitFor({ state: 'detached' });
    expect((await serving()).traffic).toEqual({});

    // Promote the staged revision (after the browser's confirmation), then roll back to the one before.
    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('button', { name: 'Promote revision 2' }).click();
    await expect.poll(() => states(page)).toEqual(['live', 'retired']);
    await page.getByRole('heading', { name: 'Bundle (revision 2, live)' }).waitFor();
    expect((await serving()).revision).toBe(2);
    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('button', { name: 'Roll back to revision 1' }).click();
    await expect.poll(() => states(page)).toEqual(['retired', 'live']);
    expect((await serving()).revision).toBe(1);

    // Every change, newest first, with the live revision before and after and the key that made it.
    await expect
      .poll(async () => Promise.all(await changes(page)))
      .toEqual([
        ['rolled back', '1', '2 → 1'],
        ['promoted', '2', '1 → 2'],
        ['traffic', '—', '1'],
        ['traffic', '—', '1'],
        ['staged', '2', '1'],
        ['deployed', '1', '— → 1'],
      ]);
    const changesRegion = page.getByRole('region', { name: 'Changes', exact: true });
    expect(await changesRegion.locator('tbody tr td:nth-child(4)').allTextContents()).toContain('revision 2: 25%');
    expect(new Set(await changesRegion.locator('tbody tr td:nth-child(5)').allTextContents())).toEqual(new Set([user.keyId]));
    await changesRegion.scrollIntoViewIfNeeded();
    await expectAccessible(page);
    await screenshot(page, 'agent-changes');
    expect(faults).toEqual([]);
  } finally {
    await close();
  }
});
