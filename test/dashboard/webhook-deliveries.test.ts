// A webhook's delivery log in the dashboard, against real deliveries: a receiver subscribed to
// session.completed answers 503 once then 200; the log shows the delivery delivered after two
// attempts, with the receiver's last answer.
import { expect } from 'vitest';
import { agentWithHooksTest } from '../helpers/harness/fixtures.ts';
import { browserForTests, expectAccessible, openPage, screenshot, signIn } from './browser.ts';

const test = agentWithHooksTest({ OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8', WEBHOOK_RETRY_SCHEDULE_MS: '300,300' }, ['session.completed']);
const browser = browserForTests();

test('a delivery retried after a 503 shows as delivered, with its attempts and last answer', async ({ env, hooks }) => {
  hooks.enqueue(503);
  const sessionId = await env.newSession();
  env.fake.enqueue({ text: 'Done.' });
  const sent = await fetch(`${env.api.url}/session/${sessionId}`, {
    method: 'POST',
    headers: { ...env.user.auth, 'content-type': 'application/json' },
    body: JSON.stringify({ parts: [{ type: 'text', text: 'Go' }] }),
  });
  expect(sent.status).toBe(200);
  await hooks.waitForRequests(2);

  const { page, faults, close } = await openPage(browser());
  try {
    await signIn(page, env.api.url, env.user.apiKey, '/app/webhooks');
    const card = page.getByRole('listitem').filter({ hasText: hooks.url });
    await card.getByRole('button', { name: 'Show deliveries' }).click();
    const row = card.getByRole('row').filter({ hasText: 'session.completed' });
    await expect.poll(() => row.textContent(), { timeout: 15_000 }).toContain('delivered');
    const cells = await row.getByRole('cell').allTextContents();
    expect(cells.slice(0, 4)).toEqual(['session.completed', 'delivered', '2', 'HTTP 200']);
    await expectAccessible(page);
    await screenshot(page, 'webhook-deliveries');
    expect(faults).toEqual([]);
  } finally {
    await close();
  }
});
