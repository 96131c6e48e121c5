// A question a team answers, in the dashboard against the real service: the inbox card shows the rule,
// the tally and each approver's vote as they come (one by an approver's own link); the person's own answer
// is one vote, and one that does not decide leaves the card saying so; once an approver's vote decides,
// the history names them and the approval's page lists every vote and who decided.
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
