// Sessions in the dashboard against the real service and the fake model: a new session opened from
// the agent's list, a reply streaming in (seen while the model is still writing), stopped, then a
// full reply; and the live view going on after its connection is cut, with every word once.
import { afterAll, beforeAll, expect } from 'vitest';
import type { Browser } from 'playwright-core';
import { Client } from '../../sdk/src/index.ts';
import { agentTest } from '../helpers/harness/fixtures.ts';
import { startCuttingProxy } from '../sdk/cutting-proxy.ts';
import { ensureDashboardBuilt } from './build.ts';
import { expectAccessible, launchChromium, openPage, screenshot, signIn } from './browser.ts';

const test = agentTest();
let browser: Browser;
beforeAll(async () => {
  ensureDashboardBuilt();
  browser = await launchChromium();
});
afterAll(() => browser?.close());

test('a reply streams into a new session, is stopped mid-way keeping its text, and the next one completes', async ({ env }) => {
  const { name } = await env.deploy();
  const { page, faults, close } = await openPage(browser);
  try {
    await signIn(page, env.api.url, env.user.apiKey, `/app/agents/${name}/sessions`);
    await page.getByText('No session yet.').waitFor();
    await expectAccessible(page);
    await page.getByRole('button', { name: 'New session' }).click();
    await page.getByText('No message yet.').waitFor();
    await expectAccessible(page);

    // The model writes three words, then hangs: what is on the page streamed in.
    env.fake.enqueue({ text: 'alpha beta gamma delta epsilon', stallAfterChunks: 3 });
    await page.getByLabel('Message', { exact: true }).fill('Say five words');
    await page.getByRole('button', { name: 'Send' }).click();
    const reply = page.getByRole('listitem', { name: 'Agent reply' });
    await expect.poll(() => reply.textContent()).toContain('alpha beta gamma');
    expect(await reply.textContent()).toContain('writing…');
    expect(await page.getByRole('listitem', { name: 'Your message' }).textContent()).toContain('Say five words');
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'running' }).count()).toBe(1);
    await screenshot(page, 'session-streaming');

    await page.getByRole('button', { name: 'Stop the turn' }).click();
    await page.getByText('The turn was stopped.').waitFor();
    expect(await reply.textContent()).toContain('alpha beta gamma');

    env.fake.enqueue({ text: 'All done here.' });
    await page.getByLabel('Message', { exact: true }).fill('Finish');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.getByRole('listitem', { name: 'Agent reply' }).filter({ hasText: 'All done here.' }).waitFor();
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'idle' }).count()).toBe(1);
    await expectAccessible(page);
    await screenshot(page, 'session');

    await page.getByRole('link', { name }).click();
    const row = page.getByRole('row').filter({ hasText: /ses_/ });
    await expect.poll(() => row.textContent()).toContain('idle');
    await screenshot(page, 'sessions');
    expect(faults).toEqual([]);
  } finally {
    await close();
  }
});

test('cut mid-reply, the live view reconnects and shows every word once', async ({ env }) => {
  const proxy = await startCuttingProxy(env.api.url);
  const sessionId = await env.newSession();
  const words = Array.from({ length: 30 }, (_, index) => `w${index}`);
  const { page, faults, close } = await openPage(browser);
  try {
    await signIn(page, proxy.url, env.user.apiKey, `/app/sessions/${sessionId}`);
    await page.getByText('No message yet.').waitFor();
    env.fake.enqueue({ text: words.map((word) => `${word} `), chunkDelayMs: 60 });
    await new Client({ baseUrl: env.api.url, apiKey: env.user.apiKey }).sessions.sendAsync(sessionId, 'Count');
    const reply = page.getByRole('listitem', { name: 'Agent reply' });
    await expect.poll(() => reply.textContent()).toContain('w3 ');
    const before = proxy.connections;
    proxy.cutAll();
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'idle' }).count(), { timeout: 20_000 }).toBe(1);
    await expect.poll(() => reply.locator('.message-text').textContent()).toBe(words.map((word) => `${word} `).join(''));
    expect(proxy.connections).toBeGreaterThan(before);
    expect(faults).toEqual([]);
  } finally {
    await close();
    await proxy.close();
  }
});
