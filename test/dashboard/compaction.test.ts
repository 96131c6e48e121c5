// A compacted conversation in the dashboard, against the real service and the fake model: the session
// page marks where the conversation was compacted, says by how much, and keeps the summary folded
// under the marker; the messages it stands for stay listed. Seen live as the compaction happens, and
// on a page opened afterwards.
import { expect } from 'vitest';
import type { Page } from 'playwright-core';
import { Client } from '../../sdk/src/index.ts';
import { agentTest } from '../helpers/harness/fixtures.ts';
import { call } from '../helpers/client/request.ts';
import { browserForTests, expectAccessible, openPage, screenshot, signIn } from './browser.ts';
import { isSummarising } from '../helpers/fakes/compaction-requests.ts';

const test = agentTest();
const browser = browserForTests();

const SUMMARY = 'SUMMARY: the user asked about the orders A-17 and A-18; both shipped on Monday.';

interface Compacted {
  compacted: boolean;
  summaryMessageId: string;
  throughMessageId: string;
  tokensBefore: number;
  tokensAfter: number;
}

/** What the marker shows, and that its summary is folded: hidden until "The summary" is opened. */
async function expectMarker(page: Page, compacted: Compacted): Promise<void> {
  const marker = page.getByRole('listitem', { name: 'Compaction' });
  await expect.poll(() => marker.count()).toBe(1);
  const note = await marker.locator('.compaction-note').textContent();
  expect(note).toContain('The conversation above was summarised');
  expect(note).toContain(`(about ${compacted.tokensBefore} tokens down to ${compacted.tokensAfter})`);
  const details = marker.locator('details');
  expect(await details.count()).toBe(1);
  expect(await details.textContent()).toContain(SUMMARY);
  expect(await details.getAttribute('open')).toBeNull();
  expect(await details.getByText(SUMMARY).isVisible()).toBe(false);
  await details.getByText('The summary').click();
  await expect.poll(() => details.getByText(SUMMARY).isVisible()).toBe(true);
}

test('a compaction is marked in the conversation, with its summary folded under the marker', async ({ env }) => {
  env.fake.setHandler((request) =>
    isSummarising(request)
      ? { text: SUMMARY }
      : { text: `Order ${request.body.messages.filter((message) => message.role === 'user').length} shipped.` },
  );
  const client = new Client({ baseUrl: env.api.url, apiKey: env.user.apiKey });
  const sessionId = await env.newSession();
  // Questions long enough that the summary is shorter than what it stands for. The fake model's reported
  // input tokens leave out the tools' definitions, which the estimate after the compaction counts (a
  // provider counts them in both): the summarised turns must outweigh them too.
  const longer = Array.from({ length: 200 }, (_, index) => ` detail-${index}`).join('');
  for (const question of ['Where is A-17?', 'And A-18?', 'When did they ship?']) {
    await client.sessions.sendAndWait(sessionId, `${question}${longer}`);
  }

  const { page, faults, close } = await openPage(browser());
  try {
    await signIn(page, env.api.url, env.user.apiKey, `/app/sessions/${sessionId}`);
    const replies = page.getByRole('listitem', { name: 'Agent reply' });
    await expect.poll(() => replies.count()).toBe(3);
    expect(await page.getByRole('listitem', { name: 'Compaction' }).count()).toBe(0);

    // Compacted while the page is open: the marker comes in live.
    const response = await call<Compacted>(`${env.api.url}/session/${sessionId}/compact`, { headers: env.user.auth, json: {} });
    expect(response.status, response.text).toBe(200);
    const compacted = response.body;
    expect(compacted).toMatchObject({ compacted: true });
    expect(compacted.tokensBefore).toBeGreaterThan(compacted.tokensAfter);
    await expectMarker(page, compacted);

    // Opened afterwards: the same marker, after the messages it stands for, which stay listed.
    await page.reload();
    await expect.poll(() => replies.count()).toBe(3);
    await expectMarker(page, compacted);
    const labels = await page.locator('li.message').evaluateAll((items) => items.map((item) => item.getAttribute('aria-label')));
    expect(labels.filter((label) => label !== 'Compaction')).toEqual([
      'Your message',
      'Agent reply',
      'Your message',
      'Agent reply',
      'Your message',
      'Agent reply',
    ]);
    // Through the second reply: the marker is listed right after it, before the last turn kept whole.
    expect(labels.indexOf('Compaction')).toBe(4);
    expect(await page.getByText('Order 1 shipped.').isVisible()).toBe(true);
    await expectAccessible(page);
    await screenshot(page, 'session-compacted');
    expect(faults).toEqual([]);
  } finally {
    await close();
  }
});
