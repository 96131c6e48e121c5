// An approver hands their vote on from their own link page (POST /approval/<token>/answer/delegate): the
// page offers the form to an approver who has neither voted nor handed on; the hand-off is the one the
// API's delegate route makes (the new approver joins, is asked at their address, and votes in the first
// one's place; the session records it); the first approver's link votes no more and says to whom it went.
// Refusals name nobody of the directory, and the approval's own link (its user's) hands nothing on.
import { describe, expect } from 'vitest';
import type { AgentEnv } from '../helpers/harness/agent-env.ts';
import { agentWithHooksTest } from '../helpers/harness/fixtures.ts';
import { call } from '../helpers/client/request.ts';
import { SCANNER_HEADERS, openLink } from '../helpers/client/browser-headers.ts';
import { until } from '../helpers/harness/workflow-env.ts';

const test = agentWithHooksTest({ OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8' }, ['approval.answered']);

interface Seat {
  name: string;
  addedBy: string;
  delegatedTo: string | null;
  vote: { choice: string } | null;
  links: { page: string };
}

interface TeamApproval {
  id: string;
  status: string;
  token: string;
  approvers: Seat[];
}

const FORM_HEADING = 'Hand my vote to another approver';
const HTML_FORM = { accept: 'text/html', 'content-type': 'application/x-www-form-urlencoded' };

async function directory(env: AgentEnv, names: string[]): Promise<void> {
  for (const name of names) {
    const put = await call(`${env.api.url}/approver/${name}`, {
      method: 'PUT',
      headers: env.user.auth,
      json: { email: `${name}@example.com` },
    });
    expect(put.status).toBeLessThan(300);
  }
}

async function create(env: AgentEnv, body: Record<string, unknown>): Promise<TeamApproval> {
  const created = await call<TeamApproval>(`${env.api.url}/approval`, {
    headers: env.user.auth,
    json: { question: 'Deploy the <b>release</b>?', options: ['approve', 'deny'], ...body },
  });
  expect(created.status, created.text).toBe(201);
  return created.body;
}

const read = async (env: AgentEnv, id: string) =>
  (await call<TeamApproval>(`${env.api.url}/approval/${id}`, { headers: env.user.auth })).body;

const pageOf = (approval: TeamApproval, name: string) => approval.approvers.find((seat) => seat.name === name)!.links.page;

/** The approver's hand-on form posted as a browser posts it, the page back. */
const handOnByForm = (page: string, to: string) =>
  call(`${page}/delegate`, { headers: HTML_FORM, body: new URLSearchParams({ to }).toString() });

/** The same as a client posting JSON. */
const handOnByJson = (page: string, to: string) =>
  call<{ id?: string; from?: string; to?: string; detail?: string }>(`${page}/delegate`, {
    headers: { accept: 'application/json' },
    json: { to },
  });

const voteByLink = (page: string, choice: string) =>
  call<Record<string, unknown>>(page, { headers: { accept: 'application/json' }, json: { choice } });

describe("handing a vote on from an approver's link page", () => {
  test('the form hands the vote: the delegate joins and is asked, votes in their place; the first link votes no more', async ({
    env,
    hooks,
  }) => {
    await directory(env, ['alice', 'dave']);
    const put = await call(`${env.api.url}/approver/dl-erin`, {
      method: 'PUT',
      headers: env.user.auth,
      json: { webhook: { url: `${hooks.url}/dl-erin` } },
    });
    expect(put.status).toBeLessThan(300);
    const sessionId = await env.newSession();
    const approval = await create(env, { sessionId, approvers: ['alice', 'dave'], quorum: 2 });
    const davePage = pageOf(approval, 'dave');

    // Dave's page (a fetch, not a click: nothing acts) offers the second form, posting under the link's path.
    const page = await openLink(davePage, SCANNER_HEADERS);
    expect(page.status).toBe(200);
    expect(page.text).toContain(FORM_HEADING);
    expect(page.text).toContain(`action="${new URL(davePage).pathname}/delegate"`);
    expect(page.text).toContain('<input id="to" name="to"');
    // Fetching the form's address hands nothing on: only its POST acts.
    expect((await openLink(`${davePage}/delegate`, SCANNER_HEADERS)).status).toBe(404);
    expect((await read(env, approval.id)).approvers.map((seat) => seat.delegatedTo)).toEqual([null, null]);

    // Typed as a person may type it: the directory's names are lower case.
    const handed = await handOnByForm(davePage, ' DL-Erin ');
    expect(handed.status, handed.text).toBe(200);
    expect(handed.text).toContain('Your vote is handed to dl-erin.');
    // The question is text, never markup.
    expect(handed.text).toContain('Deploy the &#60;b&#62;release&#60;/b&#62;?');
    const now = await read(env, approval.id);
    expect(now.approvers.map((seat) => [seat.name, seat.addedBy, seat.delegatedTo])).toEqual([
      ['alice', 'request', null],
      ['dave', 'request', 'dl-erin'],
      ['dl-erin', 'delegation', null],
    ]);
    const delegated = (await env.events(sessionId)).filter((event) => event.type === 'approval.delegated');
    expect(delegated).toEqual([expect.objectContaining({ approvalId: approval.id, from: 'dave', to: 'dl-erin' })]);

    // Dave's link now says to whom it went, offers neither buttons nor the form, and its vote is refused.
    const after = await openLink(davePage, SCANNER_HEADERS);
    expect(after.status).toBe(200);
    expect(after.text).toContain('You handed your vote to dl-erin.');
    expect(after.text).not.toContain('name="choice"');
    expect(after.text).not.toContain(FORM_HEADING);
    const refused = await voteByLink(davePage, 'approve');
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ detail: expect.stringContaining('handed their vote to dl-erin') });
    const refusedPage = await call(davePage, { headers: HTML_FORM, body: 'choice=approve' });
    expect(refusedPage.status).toBe(409);
    expect(refusedPage.text).toContain('Nothing was recorded.');
    const again = await handOnByJson(davePage, 'alice');
    expect(again.status).toBe(409);
    expect(again.body.detail).toBe('You have handed on your vote already');

    // The hand-off is the API's: the workflow asks the new approver at their address.
    await until(
      'the delegate to be asked',
      () => hooks.requests.some((request) => request.path.endsWith('/dl-erin') && request.body.includes(approval.id)),
      15_000,
    );
    // Their vote counts in dave's place.
    expect((await voteByLink(pageOf(approval, 'alice'), 'approve')).status).toBe(202);
    const decided = await voteByLink(pageOf(now, 'dl-erin'), 'approve');
    expect(decided.status, JSON.stringify(decided.body)).toBe(200);
    expect(decided.body).toMatchObject({ status: 'answered', approver: 'dl-erin', tally: { approve: 2, deny: 0 } });
    expect(await read(env, approval.id)).toMatchObject({ status: 'answered', choice: 'approve' });
  });

  test('refused: a name not in the directory (naming nobody), one already an approver, a vote cast, the user’s own link, an answered approval', async ({
    env,
  }) => {
    await directory(env, ['alice', 'bob', 'carol', 'secret-sam']);
    const approval = await create(env, { approvers: ['me', 'alice', 'bob'], quorum: 3 });
    const alicePage = pageOf(approval, 'alice');

    // A name the directory lacks: 400, the same words whatever the directory holds, and the form again.
    for (const to of ['zed', 'group:finance', 'x'.repeat(80)]) {
      const unknown = await handOnByForm(alicePage, to);
      expect(unknown.status, to).toBe(400);
      expect(unknown.text).toContain('There is no approver of that name');
      expect(unknown.text).toContain(FORM_HEADING);
      for (const name of ['carol', 'secret-sam', 'bob']) expect(unknown.text).not.toContain(name);
    }
    const unknownJson = await handOnByJson(alicePage, 'zed');
    expect(unknownJson.status).toBe(400);
    expect(unknownJson.body.detail).toBe('There is no approver of that name');
    expect(unknownJson.text).not.toMatch(/carol|secret-sam/);
    expect((await handOnByForm(alicePage, '  ')).status).toBe(400);

    // `to` is an approver of it already.
    const taken = await handOnByForm(alicePage, 'bob');
    expect(taken.status).toBe(409);
    expect(taken.text).toContain('bob is an approver of this approval already');

    // The approval's own link votes as its user: no form on its page, and its POST hands nothing on.
    const ownPage = `${env.api.url}/approval/${approval.token}/answer`;
    const own = await openLink(ownPage, SCANNER_HEADERS);
    expect(own.status).toBe(200);
    expect(own.text).toContain('name="choice"');
    expect(own.text).not.toContain(FORM_HEADING);
    expect((await handOnByJson(ownPage, 'carol')).status).toBe(403);
    const ownForm = await handOnByForm(ownPage, 'carol');
    expect(ownForm.status).toBe(403);
    expect(ownForm.text).toContain('only an approver&#39;s own link hands their vote on');
    // A token that is not signed here is no link at all.
    expect((await handOnByJson(alicePage.replace(/\.[a-z0-9]{20}\/answer$/, `.${'a'.repeat(20)}/answer`), 'carol')).status).toBe(404);

    // Once alice has voted, her page offers no form, and the hand-on is refused: her vote stands.
    expect((await voteByLink(alicePage, 'approve')).status).toBe(202);
    expect((await openLink(alicePage, SCANNER_HEADERS)).text).not.toContain(FORM_HEADING);
    const voted = await handOnByJson(alicePage, 'carol');
    expect(voted.status).toBe(409);
    expect(voted.body.detail).toBe('You have voted already: your vote stands');

    // Bob's deny decides (denyWins): his page no longer asks, and a hand-on is refused as answered.
    const bobPage = pageOf(approval, 'bob');
    expect((await voteByLink(bobPage, 'deny')).status).toBe(200);
    const closed = await handOnByForm(bobPage, 'carol');
    expect(closed.status).toBe(409);
    expect(closed.text).toContain('This question was already answered');
    expect((await handOnByJson(bobPage, 'carol')).status).toBe(409);

    // Nothing any refusal touched: the approvers are those asked.
    const after = await read(env, approval.id);
    expect(after.approvers.map((seat) => [seat.name, seat.delegatedTo])).toEqual([
      ['me', null],
      ['alice', null],
      ['bob', null],
    ]);
  });

  test('a client posting JSON gets who handed the vote to whom', async ({ env }) => {
    await directory(env, ['alice', 'bob', 'carol']);
    const approval = await create(env, { approvers: ['alice', 'bob'], quorum: 2 });
    const handed = await handOnByJson(pageOf(approval, 'bob'), 'Carol');
    expect(handed.status, handed.text).toBe(200);
    expect(handed.body).toEqual({ id: approval.id, from: 'bob', to: 'carol' });
    expect((await read(env, approval.id)).approvers.map((seat) => [seat.name, seat.addedBy, seat.delegatedTo])).toEqual([
      ['alice', 'request', null],
      ['bob', 'request', 'carol'],
      ['carol', 'delegation', null],
    ]);
  });

  test("an approval anyone answers has no approvers' links: its own link hands nothing on", async ({ env }) => {
    const single = await call<{ token: string }>(`${env.api.url}/approval`, { headers: env.user.auth, json: { question: 'Alone?' } });
    expect(single.status).toBe(201);
    const ownPage = `${env.api.url}/approval/${single.body.token}/answer`;
    expect((await openLink(ownPage, SCANNER_HEADERS)).text).not.toContain(FORM_HEADING);
    expect((await handOnByJson(ownPage, 'alice')).status).toBe(403);
  });
});
