// A turn waiting for its user to sign in to an OAuth-protected MCP server, in the approvals inbox against
// the real service and the fake authorization server: the card says so and offers a sign-in button in place
// of the answers, the button signs in in a new tab, and the sign-in answers every question of that user and
// server waiting for it, so their turns go on and call the tool with the new sign-in. A sign-in that cannot
// start closes its tab and shows the service's problem on the card.
import { afterAll, beforeAll, expect } from 'vitest';
import type { Page } from 'playwright-core';
import { agentTest } from '../helpers/harness/fixtures.ts';
import { registerMcp, toolResults } from '../helpers/harness/mcp-agent.ts';
import type { AgentEnv } from '../helpers/harness/agent-env.ts';
import { call } from '../helpers/client/request.ts';
import { CLICK_HEADERS, openLink } from '../helpers/client/browser-headers.ts';
import { startOAuthMcpServer, type OAuthMcpServer } from '../helpers/fakes/oauth-mcp-server.ts';
import type { SessionEvent } from '../../contract/events.ts';
import { browserForTests, expectAccessible, openPage, screenshot, signIn } from './browser.ts';

const test = agentTest({ OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8' });
const browser = browserForTests();

let oauthServer: OAuthMcpServer;
beforeAll(async () => {
  oauthServer = await startOAuthMcpServer();
});
afterAll(async () => {
  await oauthServer?.close();
});

type ApprovalRequested = Extract<SessionEvent, { type: 'approval.requested' }>;

/** The whole sign-in through the API, as a person's browser arrives at the callback. */
async function signInByApi(env: AgentEnv, id: string): Promise<void> {
  const started = await call<{ authorizationUrl: string }>(`${env.api.url}/mcp/${id}/connect`, { method: 'POST', headers: env.user.auth });
  expect(started.status, started.text).toBe(200);
  const consent = await fetch(started.body.authorizationUrl, { redirect: 'manual' });
  expect(consent.status).toBe(302);
  const landed = await openLink(consent.headers.get('location')!, CLICK_HEADERS);
  expect(landed.status).toBe(200);
  expect(landed.text).toContain('Connected to');
}

/** A turn of the session whose model calls `whoami` on the signed-out server, sent without waiting: it waits for the sign-in. */
async function turnWaitingForSignIn(env: AgentEnv, sessionId: string, callId: string): Promise<ApprovalRequested> {
  // Only the tool call is queued: once resumed, the model's next answer is the fake's default text.
  env.fake.enqueue({ toolCalls: [{ id: callId, name: 'whoami', arguments: {} }] });
  const sent = await call(`${env.api.url}/session/${sessionId}?async=1`, {
    headers: env.user.auth,
    json: { parts: [{ type: 'text', text: 'who am I there?' }] },
  });
  expect(sent.status, sent.text).toBe(202);
  const events = await env.waitForEvents(sessionId, (all) => all.some((event) => event.type === 'approval.requested'));
  return events.find((event) => event.type === 'approval.requested') as ApprovalRequested;
}

/** The card of the question waiting in `sessionId`'s turn for a sign-in to `serverId`. */
const cardOf = (page: Page, sessionId: string, serverId = 'crm') =>
  page.getByRole('article', { name: `Sign in to the MCP server "${serverId}"`, exact: false }).filter({ hasText: sessionId });

test('a turn waiting for a sign-in: the card signs in in a new tab, and every turn waiting for that server goes on', async ({ env }) => {
  const registered = await registerMcp(env, 'crm', { url: oauthServer.url, auth: { type: 'oauth' } });
  expect(registered.status, registered.text).toBe(201);
  oauthServer.signInAs('person-before');
  await signInByApi(env, 'crm');
  const first = await env.newSession({ mcps: ['crm'] });
  const second = await env.newSession({ mcps: ['crm'] });
  // Signed out after the deploys: the next call to the server finds no sign-in.
  const signedOut = await call(`${env.api.url}/mcp/crm/connection`, { method: 'DELETE', headers: env.user.auth });
  expect(signedOut.status, signedOut.text).toBe(200);

  env.fake.reset();
  const asked = await turnWaitingForSignIn(env, first, 'c-first');
  const askedToo = await turnWaitingForSignIn(env, second, 'c-second');
  expect(oauthServer.calls.filter((made) => made.tool === 'whoami')).toEqual([]);

  const { page, faults, close } = await openPage(browser());
  try {
    await signIn(page, env.api.url, env.user.apiKey, '/app/approvals');
    const card = cardOf(page, first);
    await card.waitFor();
    await cardOf(page, second).waitFor();
    await expect.poll(() => card.textContent()).toMatch(/left/);
    const shown = (await card.textContent())!;
    expect(shown).toContain('so that the agent can use its tool whoami');
    expect(shown).toContain('Answered by signing in to the MCP server crm, in a new tab.');
    // A sign-in, never a choice: no option, no free answer, no note.
    const button = card.getByRole('button', { name: 'Sign in to crm', exact: true });
    await button.waitFor();
    expect(await card.getByRole('button').count()).toBe(1);
    expect(await card.getByRole('button', { name: 'Connect', exact: true }).count()).toBe(0);
    // Its one button, in a group named for the question as option buttons are (several sign-ins to one server tell apart).
    expect(await card.getByRole('group', { name: /^Answers to: Sign in to the MCP server "crm"/ }).count()).toBe(1);
    expect(await card.getByLabel('Note (optional)').count()).toBe(0);
    expect(await card.getByRole('textbox').count()).toBe(0);
    await expectAccessible(page);
    await screenshot(page, 'approvals-sign-in-waiting');

    // The sign-in opens in a new tab; the authorization server sends it straight back to the callback.
    oauthServer.signInAs('person-dashboard');
    const [tab] = await Promise.all([page.context().waitForEvent('page'), button.click()]);
    await tab.getByText('Connected to “crm”').waitFor();
    expect(new URL(tab.url()).pathname).toBe('/mcp-oauth/callback');
    expect(await tab.textContent('body')).toContain('a turn that waited for it goes on');
    // The sign-in tab cannot reach back into the dashboard.
    expect(await tab.evaluate('window.opener')).toBeNull();
    await tab.close();

    // The inbox's own refresh: both questions leave it, answered by the one sign-in.
    await card.waitFor({ state: 'detached' });
    await cardOf(page, second).waitFor({ state: 'detached' });
    await page.getByText('No question is waiting for an answer.').waitFor();
    const history = page.getByRole('row', { name: /Sign in to the MCP server "crm"/ });
    await expect.poll(() => history.count()).toBe(2);
    for (const row of await history.all()) expect(await row.getByRole('cell').nth(1).textContent()).toBe('Connect');
    await expectAccessible(page);
    await screenshot(page, 'approvals-sign-in-answered');

    for (const [sessionId, requested] of [
      [first, asked],
      [second, askedToo],
    ] as const) {
      const events = await env.waitForEvents(sessionId, (all) => all.some((event) => event.type === 'turn.completed'));
      expect(events.find((event) => event.type === 'approval.answered')).toMatchObject({
        approvalId: requested.approvalId,
        choice: 'Connect',
      });
      expect(toolResults(events).at(-1)).toMatchObject({ toolName: 'whoami', output: 'signed in as person-dashboard' });
    }
    expect(oauthServer.calls.filter((made) => made.tool === 'whoami').map((made) => made.subject)).toEqual([
      'person-dashboard',
      'person-dashboard',
    ]);
    expect(faults).toEqual([]);
  } finally {
    await close();
  }
});

test("a sign-in that cannot start: the tab it opened closes, the card shows the service's problem, and the question stays", async ({
  env,
}) => {
  const registered = await registerMcp(env, 'desk', { url: oauthServer.url, auth: { type: 'oauth' } });
  expect(registered.status, registered.text).toBe(201);
  oauthServer.signInAs('person-desk');
  await signInByApi(env, 'desk');
  const sessionId = await env.newSession({ mcps: ['desk'] });
  expect((await call(`${env.api.url}/mcp/desk/connection`, { method: 'DELETE', headers: env.user.auth })).status).toBe(200);
  env.fake.reset();
  const asked = await turnWaitingForSignIn(env, sessionId, 'c-desk');
  // The server is no longer registered while its question waits: there is nothing to sign in to.
  expect((await call(`${env.api.url}/mcp/desk`, { method: 'DELETE', headers: env.user.auth })).status).toBeLessThan(300);

  const { page, faults, close } = await openPage(browser());
  try {
    await signIn(page, env.api.url, env.user.apiKey, '/app/approvals');
    const card = cardOf(page, sessionId, 'desk');
    const button = card.getByRole('button', { name: 'Sign in to desk', exact: true });
    await button.waitFor();
    const [tab] = await Promise.all([page.context().waitForEvent('page'), button.click()]);
    if (!tab.isClosed()) await tab.waitForEvent('close');
    const alert = card.getByRole('alert');
    await expect.poll(() => alert.textContent()).toContain('You registered no MCP server with the id "desk"');
    expect(await button.isEnabled()).toBe(true);
    expect(page.context().pages()).toEqual([page]);
    await expectAccessible(page);
    await screenshot(page, 'approvals-sign-in-refused');

    const approval = await call<{ status: string }>(`${env.api.url}/approval/${asked.approvalId}`, { headers: env.user.auth });
    expect(approval.body.status).toBe('unanswered');
    expect(faults).toEqual([]);
  } finally {
    await close();
  }
});
