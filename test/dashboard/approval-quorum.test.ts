// A question a team answers, in the dashboard against the real service: the inbox card shows the rule,
// the tally and each approver's vote as they come (one by an approver's own link); the person's own answer
// is one vote, and one that does not decide leaves the card saying so; once an approver's vote decides,
// the history names them and the approval's page lists every vote and who decided. On that page, while it
// waits, a waiting approver's vote can be handed to another approver (a key with agents:write only).
import { expect } from 'vitest';
import { agentTest } from '../helpers/harness/fixtures.ts';
import { call } from '../helpers/client/request.ts';
import { browserForTests, expectAccessible, openPage, screenshot, signIn } from './browser.ts';

const test = agentTest();
const browser = browserForTests();

interface TeamApproval {
  id: string;
  approvers: Array<{ name: string; links: { page: string } }>;
}

async function directory(env: { api: { url: string }; user: { auth: Record<string, string> } }, names: string[]): Promise<void> {
  for (const name of names) {
    const put = await call(`${env.api.url}/approver/${name}`, {
      method: 'PUT',
      headers: env.user.auth,
      json: { email: `${name}@example.com` },
    });
    expect(put.status).toBeLessThan(300);
  }
}

async function voteByLink(approval: TeamApproval, name: string, choice: string, note?: string): Promise<number> {
  const page = approval.approvers.find((seat) => seat.name === name)!.links.page;
  return (await call(page, { headers: { accept: 'application/json' }, json: { choice, ...(note ? { note } : {}) } })).status;
}

test("a team's question: votes in the card, my vote waits on the others, the deciding approver in the history and on its page", async ({
  env,
}) => {
  for (const name of ['alice', 'bob']) {
    const put = await call(`${env.api.url}/approver/${name}`, {
      method: 'PUT',
      headers: env.user.auth,
      json: { email: `${name}@example.com` },
    });
    expect(put.status).toBeLessThan(300);
  }
  const created = await call<TeamApproval>(`${env.api.url}/approval`, {
    headers: env.user.auth,
    json: { question: 'Pay invoice 1042 (4,800 EUR)?', options: ['approve', 'deny'], approvers: ['me', 'alice', 'bob'], quorum: 'all' },
  });
  expect(created.status, created.text).toBe(201);
  const approval = created.body;
  expect(await voteByLink(approval, 'alice', 'approve', 'budget <b>ok</b>')).toBe(202);

  const { page, faults, close } = await openPage(browser());
  try {
    await signIn(page, env.api.url, env.user.apiKey, '/app/approvals');
    const card = page.getByRole('article', { name: 'Pay invoice 1042 (4,800 EUR)?' });
    await card.waitFor();
    await expect.poll(() => card.textContent()).toContain('3 of 3 votes for one option decide; a deny decides at once');
    expect(await card.textContent()).toContain('approve 1, deny 0');
    const alice = card.getByRole('listitem', { name: 'Approver alice' });
    // The note is text, never markup.
    expect(await alice.textContent()).toBe('alice approve via link, just now budget <b>ok</b>');
    expect(await alice.locator('b').count()).toBe(0);
    expect(await card.getByRole('listitem', { name: 'Approver bob' }).textContent()).toBe('bob waiting');
    expect(await card.getByRole('listitem', { name: 'Approver you' }).textContent()).toBe('you waiting');
    await expectAccessible(page);
    await screenshot(page, 'approval-team-waiting');

    // My vote does not decide (202): the card stays, shows it, and offers no second vote.
    await card.getByRole('button', { name: 'approve' }).click();
    await expect.poll(() => card.getByRole('status').textContent()).toBe('You voted approve; waiting on the others.');
    await expect.poll(() => card.getByRole('listitem', { name: 'Approver you' }).textContent()).toMatch(/^you approve via api, /);
    expect(await card.textContent()).toContain('approve 2, deny 0');
    expect(await card.getByRole('button', { name: 'approve' }).count()).toBe(0);

    // Bob's vote decides: the card goes, the history names him.
    expect(await voteByLink(approval, 'bob', 'approve')).toBe(200);
    await card.waitFor({ state: 'detached', timeout: 20_000 });
    const row = page.getByRole('row', { name: /Pay invoice 1042/ });
    await expect.poll(() => row.textContent()).toContain('approve by bob');

    // Its page: the outcome, who decided, the tally, every approver's vote.
    await row.getByRole('link', { name: 'Pay invoice 1042 (4,800 EUR)?' }).click();
    await page.getByRole('heading', { name: `Approval ${approval.id}` }).waitFor();
    const decided = page.getByRole('article', { name: 'Pay invoice 1042 (4,800 EUR)?' });
    await expect.poll(() => decided.textContent()).toContain('Decided bybob');
    expect(await decided.textContent()).toContain('approve 3, deny 0');
    const votes = decided.getByRole('list', { name: 'Approvers of: Pay invoice 1042 (4,800 EUR)?' }).getByRole('listitem');
    expect(await votes.allTextContents()).toEqual([
      expect.stringMatching(/^you approve via api, /),
      expect.stringMatching(/^alice approve via link, .*budget <b>ok<\/b>$/),
      expect.stringMatching(/^bob approve via link, /),
    ]);
    await expectAccessible(page);
    await screenshot(page, 'approval-team-decided');
    expect(faults).toEqual([]);
  } finally {
    await close();
  }
});

test("the approval's page hands a waiting approver's vote on: a refusal shows the service's reason, the delegate then sits in their place", async ({
  env,
}) => {
  await directory(env, ['alice', 'dave', 'erin']);
  const created = await call<TeamApproval>(`${env.api.url}/approval`, {
    headers: env.user.auth,
    json: { question: 'Ship build 7?', options: ['approve', 'deny'], approvers: ['me', 'alice', 'dave'], quorum: 2 },
  });
  expect(created.status, created.text).toBe(201);
  const approval = created.body;
  expect(await voteByLink(approval, 'alice', 'approve')).toBe(202);

  const { page, faults, close } = await openPage(browser());
  try {
    await signIn(page, env.api.url, env.user.apiKey, `/app/approvals/${approval.id}`);
    const card = page.getByRole('article', { name: 'Ship build 7?' });
    await card.waitFor();
    const dave = card.getByRole('listitem', { name: 'Approver dave' });
    // Offered beside those still waiting (dave and me), not beside a vote cast.
    await dave.getByRole('button', { name: "Hand on… dave's vote" }).waitFor();
    expect(await card.getByRole('listitem', { name: 'Approver you' }).getByRole('button', { name: 'Hand on… your vote' }).count()).toBe(1);
    expect(await card.getByRole('listitem', { name: 'Approver alice' }).getByRole('button').count()).toBe(0);

    await dave.getByRole('button', { name: "Hand on… dave's vote" }).click();
    const form = dave.getByRole('form', { name: "Hand on dave's vote" });
    await form.getByLabel("Hand dave's vote to").fill('zed');
    await form.getByRole('button', { name: 'Hand on', exact: true }).click();
    await expect.poll(() => form.getByRole('alert').textContent()).toContain('You have no approver "zed"');
    await expectAccessible(page);
    await screenshot(page, 'approval-team-hand-on-refused');

    await form.getByLabel("Hand dave's vote to").fill('erin');
    await form.getByRole('button', { name: 'Hand on', exact: true }).click();
    await expect.poll(() => dave.textContent()).toBe('dave handed to erin');
    const erin = card.getByRole('listitem', { name: 'Approver erin' });
    await expect.poll(() => erin.textContent()).toMatch(/^erin \(added by delegation\) waiting/);
    // dave votes no more: the quorum counts those who vote (you, alice, erin).
    expect(await card.textContent()).toContain('2 of 3 votes for one option decide');
    await screenshot(page, 'approval-team-handed-on');
    const stored = await call<{ approvers: Array<{ name: string; addedBy: string; delegatedTo: string | null }> }>(
      `${env.api.url}/approval/${approval.id}`,
      { headers: env.user.auth },
    );
    expect(stored.body.approvers.map((seat) => [seat.name, seat.addedBy, seat.delegatedTo])).toEqual([
      ['me', 'request', null],
      ['alice', 'request', null],
      ['dave', 'request', 'erin'],
      ['erin', 'delegation', null],
    ]);
    expect(faults).toEqual([]);
  } finally {
    await close();
  }

  // A key that may answer but not change who approves is offered no hand-on: the service would refuse it (403).
  const minted = await call<{ key: string }>(`${env.api.url}/key`, {
    headers: env.user.auth,
    json: { name: 'answer-only', scopes: ['read', 'approvals:answer'] },
  });
  expect(minted.status).toBe(201);
  const answerOnly = await openPage(browser());
  try {
    await signIn(answerOnly.page, env.api.url, minted.body.key, `/app/approvals/${approval.id}`);
    const card = answerOnly.page.getByRole('article', { name: 'Ship build 7?' });
    await card.getByRole('listitem', { name: 'Approver erin' }).waitFor();
    expect(await card.getByRole('button', { name: /Hand on/ }).count()).toBe(0);
    expect(answerOnly.faults).toEqual([]);
  } finally {
    await answerOnly.close();
  }
});
