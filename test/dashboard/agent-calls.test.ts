// The tree of sessions in the dashboard, against the real service and the fake model: a session whose
// agent called another lists the child session it opened, and the child links back to its caller; while a
// child waits on a question, the caller's page says so and links to it.
import { expect } from 'vitest';
import { agentTest } from '../helpers/harness/fixtures.ts';
import { call } from '../helpers/client/request.ts';
import { HELPER_ASKS, HELPER_INSTRUCTIONS, LEAD_INSTRUCTIONS, leadAndHelper } from '../helpers/fakes/lead-and-helper.ts';
import { browserForTests, expectAccessible, openPage, screenshot, signIn } from './browser.ts';

const test = agentTest();
const browser = browserForTests();

test("a caller's page lists the session its agent call opened, and the child links back", async ({ env }) => {
  const helper = await env.deploy({ instructions: HELPER_INSTRUCTIONS });
  const lead = await env.deploy({ instructions: LEAD_INSTRUCTIONS, agents: [{ name: helper.name }] });
  env.fake.setHandler(leadAndHelper({ helperName: helper.name }));
  const sessionId = (await call<{ id: string }>(`${env.api.url}/agent/${lead.name}/session`, { headers: env.user.auth, json: {} })).body.id;
  const sent = await call<{ status: string }>(`${env.api.url}/session/${sessionId}`, {
    headers: env.user.auth,
    json: { parts: [{ type: 'text', text: 'Go' }] },
  });
  expect(sent.body.status).toBe('completed');

  const { page, faults, close } = await openPage(browser());
  try {
    await signIn(page, env.api.url, env.user.apiKey, `/app/sessions/${sessionId}`);
    const children = page.getByRole('list', { name: 'Sessions it opened' });
    await children.waitFor();
    expect(await children.textContent()).toContain('call call_help');
    await expectAccessible(page);
    await screenshot(page, 'session-children');
    await children.getByRole('link', { name: helper.name }).click();
    await page.getByText('Called by').waitFor();
    await page.getByRole('listitem', { name: 'Agent reply' }).filter({ hasText: 'Helped.' }).waitFor();
    await page.getByRole('link', { name: sessionId }).click();
    await page.getByRole('list', { name: 'Sessions it opened' }).waitFor();
    expect(faults).toEqual([]);
  } finally {
    await close();
  }
});

test("a caller's page says which agent it called waits on a question, linked to that session", async ({ env }) => {
  const helper = await env.deploy({ instructions: HELPER_INSTRUCTIONS });
  const lead = await env.deploy({ instructions: LEAD_INSTRUCTIONS, agents: [{ name: helper.name }] });
  env.fake.setHandler(
    leadAndHelper({
      helperName: helper.name,
      ...HELPER_ASKS,
    }),
  );
  const sessionId = (await call<{ id: string }>(`${env.api.url}/agent/${lead.name}/session`, { headers: env.user.auth, json: {} })).body.id;
  const sent = await call<{ status: string; waitingFor: { sessions: { sessionId: string }[] } }>(`${env.api.url}/session/${sessionId}`, {
    headers: env.user.auth,
    json: { parts: [{ type: 'text', text: 'Go' }] },
  });
  expect(sent.body.status).toBe('waiting');
  const childId = sent.body.waitingFor.sessions[0]!.sessionId;

  const { page, faults, close } = await openPage(browser());
  try {
    await signIn(page, env.api.url, env.user.apiKey, `/app/sessions/${sessionId}`);
    const waiting = page.getByRole('list', { name: 'Agents it called that wait' });
    await waiting.waitFor();
    expect(await waiting.textContent()).toContain('asks "Red or blue?"');
    await expectAccessible(page);
    await waiting.getByRole('link', { name: helper.name }).click();
    await page.getByText('Called by').waitFor();
    expect(page.url()).toContain(`/app/sessions/${childId}`);
    expect(faults).toEqual([]);
  } finally {
    await close();
  }
});
