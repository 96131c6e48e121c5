// What the dashboard shows of Temporal against the real service: a cron trigger's next firings on its
// agent's page, as the schedule plans them, and a session's link to its workflows in the Temporal Web
// UI when the service knows where the UI is (TEMPORAL_UI_URL).
import { expect } from 'vitest';
import { agentTest } from '../helpers/harness/fixtures.ts';
import { call } from '../helpers/client/request.ts';
import { browserForTests, expectAccessible, openPage, signIn } from './browser.ts';

const UI = 'https://temporal.example.com';
const test = agentTest({ TEMPORAL_UI_URL: UI });
const browser = browserForTests();

test("a cron trigger's next firings on the agent page; a session's workflows linked in the Web UI", async ({ env }) => {
  const { name } = await env.deploy({ triggers: [{ kind: 'cron', expression: '0 9 * * 1', timezone: 'Europe/Paris' }] });
  // The schedule is made by a workflow after the deploy: the API lists its firings once it exists.
  await expect
    .poll(
      async () =>
        (await call<{ triggers: Array<{ nextFireTimes?: string[] }> }>(`${env.api.url}/agent/${name}`, { headers: env.user.auth })).body
          .triggers[0]?.nextFireTimes?.length ?? 0,
      { timeout: 30_000 },
    )
    .toBeGreaterThan(0);
  const { page, faults, close } = await openPage(browser());
  try {
    await signIn(page, env.api.url, env.user.apiKey, `/app/agents/${name}`);
    const triggers = page.getByRole('region', { name: 'Triggers' });
    await expect.poll(() => triggers.textContent()).toContain('Next:');
    const times = await triggers.locator('time').evaluateAll((nodes) => nodes.map((node) => node.getAttribute('datetime')));
    expect(times.length).toBe(3);
    for (const at of times) expect(new Date(at!).getTime()).toBeGreaterThan(Date.now());
    await expectAccessible(page);

    const sessionId = await env.newSession();
    await page.goto(`${env.api.url}/app/sessions/${sessionId}`);
    const link = page.getByRole('link', { name: "This session's workflows in the Temporal Web UI" });
    await link.waitFor();
    expect(await link.getAttribute('href')).toBe(
      `${UI}/namespaces/default/workflows?query=${encodeURIComponent(`SessionId="${sessionId}"`)}`,
    );
    await expectAccessible(page);
    expect(faults).toEqual([]);
  } finally {
    await close();
  }
});
