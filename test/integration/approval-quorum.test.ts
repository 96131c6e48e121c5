// Approvals a team answers: approvers from the user's directory, a quorum, and a refusal that is final.
// Votes come by key ("me") and by each approver's own signed links; the decision is the rule's outcome,
// stored once (with its session's events) and handed to the approval's workflow, whose webhook event
// carries who decided and the tally.
import { describe, expect } from 'vitest';
import type { AgentEnv } from '../helpers/harness/agent-env.ts';
import { agentWithHooksTest } from '../helpers/harness/fixtures.ts';
import { createTestUser } from '../helpers/harness/users.ts';
import { call } from '../helpers/client/request.ts';
import { verifyWebhook, type WebhookEvent } from '../../lib/webhook-signature.ts';
import { until } from '../helpers/harness/workflow-env.ts';

const test = agentWithHooksTest({ OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8' }, ['approval.answered', 'approval.escalated']);

interface Seat {
  name: string;
  addedBy: string;
  delegatedTo: string | null;
  vote: { choice: string; note: string | null; via: string; votedAt: string } | null;
  links: { page: string; options: Array<{ option: string; url: string }> };
}

interface TeamApproval {
  id: string;
  status: string;
  choice: string | null;
  quorum: number;
  denyWins: boolean;
  refusingOption: string | null;
  decidedBy: string | null;
  tally: Record<string, number>;
  approvers: Seat[];
  token: string;
}

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

const create = (env: AgentEnv, body: Record<string, unknown>) =>
  call<TeamApproval>(`${env.api.url}/approval`, { headers: env.user.auth, json: { question: 'Pay invoice 1042 (4,800 EUR)?', ...body } });

const read = async (env: AgentEnv, id: string) =>
  (await call<TeamApproval>(`${env.api.url}/approval/${id}`, { headers: env.user.auth })).body;

/** A vote by the approver `seat`'s own link (POST, as its page's button does), JSON back. */
function voteByLink(approval: TeamApproval, seat: string, choice: string, note?: string) {
  const page = approval.approvers.find((candidate) => candidate.name === seat)!.links.page;
  return call<Record<string, unknown>>(page, { headers: { accept: 'application/json' }, json: { choice, ...(note ? { note } : {}) } });
}

const voteByKey = (env: AgentEnv, id: string, choice: string) =>
  call<Record<string, unknown>>(`${env.api.url}/approval/${id}/answer`, { headers: env.user.auth, json: { choice } });

describe('several approvers', () => {
  test('2 of 3 with the default denyWins: an approve waits, one deny decides at once; the webhook event names who and the tally', async ({
    env,
    hooks,
  }) => {
    await directory(env, ['alice', 'bob']);
    const created = await create(env, { options: ['approve', 'deny'], approvers: ['me', 'alice', 'bob'], quorum: 2 });
    expect(created.status).toBe(201);
    const approval = created.body;
    expect(approval).toMatchObject({ quorum: 2, denyWins: true, refusingOption: 'deny', decidedBy: null, tally: { approve: 0, deny: 0 } });
    expect(approval.approvers.map((seat) => seat.name)).toEqual(['me', 'alice', 'bob']);
    // Each approver's links are their own, unlike the approval's token.
    expect(new Set(approval.approvers.map((seat) => seat.links.page)).size).toBe(3);
    expect(approval.approvers[1]!.links.page).not.toContain(approval.token);

    const first = await voteByLink(approval, 'alice', 'approve', 'fine by me');
    expect(first.status).toBe(202);
    expect(first.body).toMatchObject({
      status: 'unanswered',
      approver: 'alice',
      choice: 'approve',
      tally: { approve: 1, deny: 0 },
      quorum: 2,
    });
    expect((await read(env, approval.id)).status).toBe('unanswered');

    const denied = await voteByLink(approval, 'bob', 'deny');
    expect(denied.status).toBe(200);
    expect(denied.body).toMatchObject({ status: 'answered', choice: 'deny', approver: 'bob', tally: { approve: 1, deny: 1 } });
    const decided = await read(env, approval.id);
    expect(decided).toMatchObject({ status: 'answered', choice: 'deny', decidedBy: 'bob', tally: { approve: 1, deny: 1 } });
    expect(decided.approvers.map((seat) => seat.vote?.choice ?? null)).toEqual([null, 'approve', 'deny']);
    expect(decided.approvers[1]!.vote).toMatchObject({ note: 'fine by me', via: 'link' });
    // Decided: the last approver's vote is refused and counted nowhere.
    expect((await voteByKey(env, approval.id, 'approve')).status).toBe(409);
    expect((await read(env, approval.id)).tally).toEqual({ approve: 1, deny: 1 });

    // The workflow took the decision: its webhook event says who decided and the votes then.
    const answeredEvent = () =>
      hooks.requests
        .map((request): WebhookEvent => verifyWebhook({ secret: hooks.secret, headers: request.headers, body: request.body }))
        .find(
          (candidate) => candidate.type === 'approval.answered' && (candidate.data as { approvalId: string }).approvalId === approval.id,
        );
    await until('the webhook event', () => answeredEvent() !== undefined, 15_000);
    expect(answeredEvent()!.data).toMatchObject({ choice: 'deny', approver: 'bob', tally: { approve: 1, deny: 1 } });
  });

  test('without denyWins a deny is one vote: the first option to reach the quorum decides', async ({ env }) => {
    await directory(env, ['alice', 'bob']);
    const { body: approval } = await create(env, {
      options: ['approve', 'deny'],
      approvers: ['me', 'alice', 'bob'],
      quorum: 2,
      denyWins: false,
    });
    expect(approval.denyWins).toBe(false);
    expect((await voteByLink(approval, 'alice', 'deny')).status).toBe(202);
    expect((await voteByKey(env, approval.id, 'approve')).status).toBe(202);
    const last = await voteByLink(approval, 'bob', 'approve');
    expect(last.status).toBe(200);
    expect(last.body).toMatchObject({ choice: 'approve', approver: 'bob', tally: { approve: 2, deny: 1 } });
    expect(await read(env, approval.id)).toMatchObject({ status: 'answered', choice: 'approve', decidedBy: 'bob' });
  });

  test('"all" needs every approver; a group counts its members, each once', async ({ env }) => {
    await directory(env, ['alice', 'bob', 'carol']);
    expect(
      (await call(`${env.api.url}/approver-group/finance`, { method: 'PUT', headers: env.user.auth, json: { members: ['alice', 'bob'] } }))
        .status,
    ).toBeLessThan(300);
    const { body: approval } = await create(env, { approvers: ['group:finance', 'bob', 'carol'], quorum: 'all' });
    expect(approval.approvers.map((seat) => seat.name)).toEqual(['alice', 'bob', 'carol']);
    expect(approval).toMatchObject({ quorum: 3, refusingOption: 'no', denyWins: true });
    expect((await voteByLink(approval, 'alice', 'yes')).status).toBe(202);
    expect((await voteByLink(approval, 'carol', 'yes')).status).toBe(202);
    const last = await voteByLink(approval, 'bob', 'yes');
    expect(last.status).toBe(200);
    expect(last.body).toMatchObject({ choice: 'yes', tally: { yes: 3, no: 0 } });
  });

  test('a forwarded link votes as the approver it names, once; someone who is not an approver is refused and counted nowhere', async ({
    env,
  }) => {
    await directory(env, ['alice', 'bob']);
    const { body: approval } = await create(env, { options: ['approve', 'deny'], approvers: ['alice', 'bob'], quorum: 2 });
    expect((await voteByLink(approval, 'alice', 'approve')).status).toBe(202);
    const again = await voteByLink(approval, 'alice', 'deny');
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ detail: expect.stringContaining('alice has already answered') });
    // The user is no approver here: not by key, not by the approval's own link.
    expect((await voteByKey(env, approval.id, 'approve')).status).toBe(403);
    const ownLink = await call(`${env.api.url}/approval/${approval.token}/answer`, {
      headers: { accept: 'application/json' },
      json: { choice: 'approve' },
    });
    expect(ownLink.status).toBe(403);
    // A link's seat cannot be changed without breaking its signature.
    const forged = approval.approvers[0]!.links.page.replace('.s0.', '.s1.');
    expect((await call(forged, { headers: { accept: 'application/json' }, json: { choice: 'approve' } })).status).toBe(404);
    const after = await read(env, approval.id);
    expect(after.tally).toEqual({ approve: 1, deny: 0 });
    expect(after.approvers.map((seat) => seat.vote?.choice ?? null)).toEqual(['approve', null]);
    // The page a person gets says why nothing was recorded.
    const page = await call(approval.approvers[0]!.links.page, {
      headers: { accept: 'text/html', 'content-type': 'application/x-www-form-urlencoded' },
      body: 'choice=approve',
    });
    expect(page.status).toBe(409);
    expect(page.text).toContain('already answered');
  });

  test("a key that may only answer sees no approver's links and cannot hand a vote on: it cannot cast every vote", async ({ env }) => {
    await directory(env, ['alice', 'bob']);
    const minted = await call<{ key: string }>(`${env.api.url}/key`, {
      headers: env.user.auth,
      json: { name: 'answer-only', scopes: ['read', 'approvals:answer'] },
    });
    expect(minted.status).toBe(201);
    const answerOnly = { authorization: `Bearer ${minted.body.key}` };
    const { body: approval } = await create(env, { options: ['approve', 'deny'], approvers: ['me', 'alice', 'bob'], quorum: 3 });
    const seen = await call<TeamApproval>(`${env.api.url}/approval/${approval.id}`, { headers: answerOnly });
    expect(seen.body.approvers.map((seat) => seat.name)).toEqual(['me', 'alice', 'bob']);
    expect(seen.body.approvers.every((seat) => seat.links === undefined)).toBe(true);
    expect(seen.text).not.toContain('.s1.');
    // It votes as "me", once.
    expect((await voteByKey({ ...env, user: { ...env.user, auth: answerOnly } }, approval.id, 'approve')).status).toBe(202);
    const handOn = await call(`${env.api.url}/approval/${approval.id}/delegate`, {
      headers: answerOnly,
      json: { from: 'alice', to: 'bob' },
    });
    expect(handOn.status).toBe(403);
  });

  test('two approvers voting the same instant: both recorded once, the decision once', async ({ env }) => {
    await directory(env, ['alice', 'bob', 'carol']);
    for (let round = 0; round < 5; round++) {
      const { body: approval } = await create(env, { options: ['approve', 'deny'], approvers: ['alice', 'bob', 'carol'], quorum: 2 });
      const votes = await Promise.all([voteByLink(approval, 'alice', 'approve'), voteByLink(approval, 'bob', 'approve')]);
      expect(votes.map((vote) => vote.status).sort()).toEqual([200, 202]);
      const after = await read(env, approval.id);
      expect(after).toMatchObject({ status: 'answered', choice: 'approve', tally: { approve: 2, deny: 0 } });
      expect(after.approvers.filter((seat) => seat.vote !== null)).toHaveLength(2);
    }
  });

  test("votes are the session's events: approval.voted, then approval.answered naming who decided", async ({ env }) => {
    await directory(env, ['alice']);
    const sessionId = await env.newSession();
    const { body: approval } = await create(env, { sessionId, options: ['approve', 'deny'], approvers: ['me', 'alice'], quorum: 2 });
    expect((await voteByKey(env, approval.id, 'approve')).status).toBe(202);
    expect((await voteByLink(approval, 'alice', 'approve')).status).toBe(200);
    const events = (await env.events(sessionId)).filter((event) => event.type.startsWith('approval.'));
    expect(events.map((event) => event.type)).toEqual(['approval.requested', 'approval.voted', 'approval.answered']);
    expect(events[1]).toMatchObject({ approver: 'me', choice: 'approve', via: 'api', tally: { approve: 1, deny: 0 }, quorum: 2 });
    expect(events[2]).toMatchObject({ choice: 'approve', approver: 'alice', via: 'link', tally: { approve: 2, deny: 0 } });
  });

  test('a request naming approvers is checked: each problem located', async ({ env }) => {
    await directory(env, ['alice']);
    const unknown = await create(env, { approvers: ['alice', 'zed', 'group:nobody'] });
    expect(unknown.status).toBe(400);
    expect(unknown.body).toMatchObject({
      errors: [
        { path: '/approvers/1', message: expect.stringContaining('zed') },
        { path: '/approvers/2', message: expect.stringContaining('nobody') },
      ],
    });
    expect(await create(env, { approvers: ['alice', 'me'], quorum: 3 })).toMatchObject({
      status: 400,
      body: { errors: [{ path: '/quorum' }] },
    });
    expect(await create(env, { options: ['red', 'blue'], approvers: ['alice', 'me'], quorum: 2, denyWins: true })).toMatchObject({
      status: 400,
      body: { errors: [{ path: '/denyWins' }] },
    });
    expect(await create(env, { quorum: 2 })).toMatchObject({ status: 400, body: { errors: [{ path: '/quorum' }] } });
    expect(await create(env, { approvers: ['Alice Smith'] })).toMatchObject({ status: 400 });
    // Another user's directory is not yours.
    const stranger = await createTestUser(env.api.db);
    const theirs = await call(`${env.api.url}/approval`, { headers: stranger.auth, json: { question: 'Pay?', approvers: ['alice'] } });
    expect(theirs).toMatchObject({ status: 400, body: { errors: [{ path: '/approvers/0' }] } });
  });
});

/** The requests an approver's webhook address got (the receiver under `/<name>`), as JSON. */
function askedAt(hooks: { requests: Array<{ path: string; body: string }> }, name: string) {
  return hooks.requests
    .filter((request) => request.path.endsWith(`/${name}`))
    .map((request) => JSON.parse(request.body) as { approval: { id: string }; links: { options: Array<{ option: string; url: string }> } });
}

const linkFor = (asked: { links: { options: Array<{ option: string; url: string }> } }, option: string) =>
  asked.links.options.find((link) => link.option === option)!.url.split('?')[0]!;

describe('time and hands', () => {
  test('an escalation adds its approvers once its time has passed: an event, a webhook, their request; the added approver decides', async ({
    env,
    hooks,
  }) => {
    await directory(env, ['alice']);
    await call(`${env.api.url}/approver/esc-bob`, {
      method: 'PUT',
      headers: env.user.auth,
      json: { webhook: { url: `${hooks.url}/esc-bob` } },
    });
    const sessionId = await env.newSession();
    const { body: approval } = await create(env, {
      sessionId,
      options: ['approve', 'deny'],
      approvers: ['alice'],
      escalate: [{ afterMs: 4_000, to: ['esc-bob'] }],
    });
    expect(approval.approvers.map((seat) => seat.name)).toEqual(['alice']);
    const escalated = await env.waitForEvents(sessionId, (events) => events.some((event) => event.type === 'approval.escalated'), 15_000);
    expect(escalated.find((event) => event.type === 'approval.escalated')).toMatchObject({ step: 0, approvers: ['esc-bob'] });
    const now = await read(env, approval.id);
    expect(now.approvers.map((seat) => [seat.name, seat.addedBy])).toEqual([
      ['alice', 'request'],
      ['esc-bob', 'escalation'],
    ]);
    await until(
      'the escalated approver to be asked',
      () => askedAt(hooks, 'esc-bob').some((asked) => asked.approval.id === approval.id),
      10_000,
    );
    const asked = askedAt(hooks, 'esc-bob').find((candidate) => candidate.approval.id === approval.id)!;
    const decided = await call(linkFor(asked, 'approve'), { headers: { accept: 'application/json' }, json: { choice: 'approve' } });
    expect(decided.body).toMatchObject({ status: 'answered', approver: 'esc-bob' });
    const webhook = () =>
      hooks.requests
        .filter((request) => request.headers['webhook-signature'] !== undefined)
        .map((request): WebhookEvent => verifyWebhook({ secret: hooks.secret, headers: request.headers, body: request.body }))
        .find((event) => event.type === 'approval.escalated' && (event.data as { approvalId: string }).approvalId === approval.id);
    await until('the escalation webhook', () => webhook() !== undefined, 10_000);
    expect(webhook()!.data).toMatchObject({ step: 0, approvers: ['esc-bob'], sessionId });
  });

  test('a reminder asks again those who have not answered, until the approval is decided', async ({ env, hooks }) => {
    await call(`${env.api.url}/approver/rem-carol`, {
      method: 'PUT',
      headers: env.user.auth,
      json: { webhook: { url: `${hooks.url}/rem-carol` } },
    });
    const { body: approval } = await create(env, { approvers: ['rem-carol'], remind: { everyMs: 1_000 } });
    const mine = () => askedAt(hooks, 'rem-carol').filter((asked) => asked.approval.id === approval.id);
    // The request, then at least two reminders.
    await until('two reminders', () => mine().length >= 3, 15_000);
    expect(new Set(mine().map((asked) => linkFor(asked, 'yes'))).size).toBe(1);
    expect((await call(linkFor(mine()[0]!, 'yes'), { headers: { accept: 'application/json' }, json: { choice: 'yes' } })).status).toBe(200);
    // A reminder already under way may still arrive: counted once the decision has had time to reach the workflow.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const settled = mine().length;
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(mine().length).toBe(settled);
  });

  test('an approver hands their vote to another: the delegate votes in their place, asked at their address; the first votes no more', async ({
    env,
    hooks,
  }) => {
    await directory(env, ['alice', 'dave']);
    await call(`${env.api.url}/approver/del-erin`, {
      method: 'PUT',
      headers: env.user.auth,
      json: { webhook: { url: `${hooks.url}/del-erin` } },
    });
    const { body: approval } = await create(env, { options: ['approve', 'deny'], approvers: ['alice', 'dave'], quorum: 2 });
    const delegate = (body: unknown) =>
      call<TeamApproval>(`${env.api.url}/approval/${approval.id}/delegate`, { headers: env.user.auth, json: body });
    expect((await delegate({ from: 'zed', to: 'del-erin' })).status).toBe(400);
    expect((await delegate({ from: 'dave', to: 'nobody-here' })).status).toBe(400);
    expect((await delegate({ from: 'dave', to: 'alice' })).status).toBe(409);
    const handed = await delegate({ from: 'dave', to: 'del-erin' });
    expect(handed.status, handed.text).toBe(200);
    expect(handed.body.approvers.map((seat) => [seat.name, seat.addedBy, seat.delegatedTo])).toEqual([
      ['alice', 'request', null],
      ['dave', 'request', 'del-erin'],
      ['del-erin', 'delegation', null],
    ]);
    expect((await delegate({ from: 'dave', to: 'del-erin' })).status).toBe(409);
    const refused = await voteByLink(approval, 'dave', 'approve');
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ detail: expect.stringContaining('handed their vote to del-erin') });
    await until('the delegate to be asked', () => askedAt(hooks, 'del-erin').some((asked) => asked.approval.id === approval.id), 10_000);
    const asked = askedAt(hooks, 'del-erin').find((candidate) => candidate.approval.id === approval.id)!;
    expect((await voteByLink(approval, 'alice', 'approve')).status).toBe(202);
    const decided = await call(linkFor(asked, 'approve'), { headers: { accept: 'application/json' }, json: { choice: 'approve' } });
    expect(decided.body).toMatchObject({ status: 'answered', approver: 'del-erin', tally: { approve: 2, deny: 0 } });
  });
});
