// A team decides where a bundle says so: a tool policy `{ask: {approvers, quorum}}` and a graph approval
// node with `approvers`. The tool runs only once the quorum approves (exactly once, whatever order the
// votes come in); a deny decides at once under the default denyWins; the deploy refuses an approver the
// user's directory does not have, at its place in the bundle.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startAgentEnv, type AgentEnv } from '../helpers/harness/agent-env.ts';
import { call } from '../helpers/client/request.ts';
import { startPaymentTarget, type PaymentTarget } from '../helpers/fakes/payment-target.ts';
import type { SessionEvent } from '../../contract/events.ts';

let env: AgentEnv;
let payments: PaymentTarget;
let received: string[];
let target: string;

beforeAll(async () => {
  payments = await startPaymentTarget();
  ({ received, url: target } = payments);
  env = await startAgentEnv({ OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8' });
  for (const name of ['alice', 'bob']) {
    const put = await call(`${env.api.url}/approver/${name}`, { method: 'PUT', headers: env.user.auth, json: {} });
    expect(put.status).toBeLessThan(300);
  }
});

afterAll(async () => {
  await env?.close();
  await payments?.close();
});

interface TeamApproval {
  id: string;
  status: string;
  quorum: number;
  approvers: Array<{ name: string; links: { page: string } }>;
}

const approvalOf = async (id: string) => (await call<TeamApproval>(`${env.api.url}/approval/${id}`, { headers: env.user.auth })).body;

function voteAs(approval: TeamApproval, name: string, choice: string) {
  const page = approval.approvers.find((seat) => seat.name === name)!.links.page;
  return call<{ status: string }>(page, { headers: { accept: 'application/json' }, json: { choice } });
}

async function askedIn(sessionId: string): Promise<string> {
  const events = await env.waitForEvents(sessionId, (all) => all.some((event) => event.type === 'approval.requested'));
  return (events.find((event) => event.type === 'approval.requested') as Extract<SessionEvent, { type: 'approval.requested' }>).approvalId;
}

const ended = (sessionId: string) =>
  env.waitForEvents(sessionId, (events) => events.some((event) => ['turn.completed', 'turn.failed'].includes(event.type)), 30_000);

async function payInTurn(order: number): Promise<string> {
  const sessionId = await env.newSession({
    mcps: ['http'],
    toolPolicies: { http: { http_request: { ask: { approvers: ['me', 'alice', 'bob'], quorum: 2 } } } },
  });
  env.fake.enqueue(
    { toolCalls: [{ id: `call_${order}`, name: 'http_request', arguments: { url: target, method: 'POST', body: `order ${order}` } }] },
    { text: 'Done.' },
  );
  const sent = await call(`${env.api.url}/session/${sessionId}?async=1`, {
    headers: env.user.auth,
    json: { parts: [{ type: 'text', text: `pay ${order}` }] },
  });
  expect(sent.status).toBe(202);
  return sessionId;
}

describe('a tool policy that asks a team', () => {
  test('the tool runs once the quorum approves, once', async () => {
    const sessionId = await payInTurn(301);
    const approval = await approvalOf(await askedIn(sessionId));
    expect(approval.quorum).toBe(2);
    expect(approval.approvers.map((seat) => seat.name)).toEqual(['me', 'alice', 'bob']);
    expect((await voteAs(approval, 'alice', 'approve')).status).toBe(202);
    // One vote is not the quorum: the tool has not run.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(received.filter((body) => body === 'order 301')).toEqual([]);
    const byKey = await call(`${env.api.url}/approval/${approval.id}/answer`, { headers: env.user.auth, json: { choice: 'approve' } });
    expect(byKey.status).toBe(200);
    const events = await ended(sessionId);
    expect(events.at(-1)).toMatchObject({ type: 'turn.completed' });
    expect(received.filter((body) => body === 'order 301')).toEqual(['order 301']);
    expect(events.find((event) => event.type === 'approval.answered')).toMatchObject({ approver: 'me', tally: { approve: 2, deny: 0 } });
  });

  test('one deny decides at once (denyWins by default with a quorum of 2): the tool does not run', async () => {
    const sessionId = await payInTurn(302);
    const approval = await approvalOf(await askedIn(sessionId));
    expect((await voteAs(approval, 'bob', 'deny')).status).toBe(200);
    const events = await ended(sessionId);
    const result = events.find((event) => event.type === 'tool.result') as Extract<SessionEvent, { type: 'tool.result' }>;
    expect(JSON.stringify(result.output)).toContain('denied');
    expect(received.filter((body) => body === 'order 302')).toEqual([]);
  });
});

describe('a decision valid when the action runs (validForMs)', () => {
  test('an approval that grew older than validForMs before the call ran is asked again; the tool runs once', async () => {
    const sessionId = await env.newSession({ mcps: ['http'], toolPolicies: { http: { http_request: { ask: { validForMs: 6_000 } } } } });
    env.fake.enqueue(
      { toolCalls: [{ id: 'call_stale', name: 'http_request', arguments: { url: target, method: 'POST', body: 'order 401' } }] },
      { text: 'Done.' },
    );
    const sent = await call(`${env.api.url}/session/${sessionId}?async=1`, {
      headers: env.user.auth,
      json: { parts: [{ type: 'text', text: 'pay 401' }] },
    });
    expect(sent.status).toBe(202);
    const first = await askedIn(sessionId);
    // Approved while no worker runs, then the turn cannot go on for longer than the approval stays valid.
    await env.restartWorker(async () => {
      const approved = await call(`${env.api.url}/approval/${first}/answer`, { headers: env.user.auth, json: { choice: 'approve' } });
      expect(approved.status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 7_000));
    });
    const again = await env.waitForEvents(
      sessionId,
      (events) => events.filter((event) => event.type === 'approval.requested').length >= 2,
      30_000,
    );
    const requests = again.filter((event) => event.type === 'approval.requested') as Extract<
      SessionEvent,
      { type: 'approval.requested' }
    >[];
    expect(requests[1]!.question).toMatch(/^Asked again: the approval given at .* is older than this tool's approvals stay valid \(6 s\)/);
    expect(received.filter((body) => body === 'order 401')).toEqual([]);
    const second = await call(`${env.api.url}/approval/${requests[1]!.approvalId}/answer`, {
      headers: env.user.auth,
      json: { choice: 'approve' },
    });
    expect(second.status).toBe(200);
    const events = await ended(sessionId);
    expect(events.at(-1)).toMatchObject({ type: 'turn.completed' });
    expect(received.filter((body) => body === 'order 401')).toEqual(['order 401']);
  });

  test('an approval used within validForMs runs the tool at once', async () => {
    const sessionId = await env.newSession({ mcps: ['http'], toolPolicies: { http: { http_request: { ask: { validForMs: 60_000 } } } } });
    env.fake.enqueue(
      { toolCalls: [{ id: 'call_fresh', name: 'http_request', arguments: { url: target, method: 'POST', body: 'order 402' } }] },
      { text: 'Done.' },
    );
    await call(`${env.api.url}/session/${sessionId}?async=1`, {
      headers: env.user.auth,
      json: { parts: [{ type: 'text', text: 'pay 402' }] },
    });
    const approvalId = await askedIn(sessionId);
    expect(
      (await call(`${env.api.url}/approval/${approvalId}/answer`, { headers: env.user.auth, json: { choice: 'approve' } })).status,
    ).toBe(200);
    const events = await ended(sessionId);
    expect(events.filter((event) => event.type === 'approval.requested')).toHaveLength(1);
    expect(received.filter((body) => body === 'order 402')).toEqual(['order 402']);
  });
});

describe('ask_my_user naming approvers', () => {
  test('the approvers the call names decide, by the quorum it gives; the model reads the decision', async () => {
    const sessionId = await env.newSession();
    env.fake.enqueue(
      {
        toolCalls: [
          {
            id: 'call_ask_team',
            name: 'ask_my_user',
            arguments: {
              question: 'Sign the lease for the new office?',
              options: ['approve', 'deny'],
              approvers: ['alice', 'bob'],
              quorum: 2,
            },
          },
        ],
      },
      { text: 'Signed.' },
    );
    await call(`${env.api.url}/session/${sessionId}?async=1`, {
      headers: env.user.auth,
      json: { parts: [{ type: 'text', text: 'lease' }] },
    });
    const approval = await approvalOf(await askedIn(sessionId));
    expect(approval.quorum).toBe(2);
    expect(approval.approvers.map((seat) => seat.name)).toEqual(['alice', 'bob']);
    // The user is no approver of it: their key's answer is refused.
    const mine = await call(`${env.api.url}/approval/${approval.id}/answer`, { headers: env.user.auth, json: { choice: 'approve' } });
    expect(mine.status).toBe(403);
    expect((await voteAs(approval, 'alice', 'approve')).status).toBe(202);
    expect((await voteAs(approval, 'bob', 'approve')).status).toBe(200);
    const events = await ended(sessionId);
    const result = events.find((event) => event.type === 'tool.result') as Extract<SessionEvent, { type: 'tool.result' }>;
    expect(result.output).toEqual({ choice: 'approve', note: null });
    expect(events.at(-1)).toMatchObject({ type: 'turn.completed' });
  });

  test('a name the directory lacks is a tool error the model reads at once; nobody is asked', async () => {
    const sessionId = await env.newSession();
    env.fake.enqueue(
      {
        toolCalls: [
          { id: 'call_ask_nobody', name: 'ask_my_user', arguments: { question: 'Hire the contractor?', approvers: ['alice', 'nobody'] } },
        ],
      },
      { text: 'I could not ask.' },
    );
    await call(`${env.api.url}/session/${sessionId}?async=1`, {
      headers: env.user.auth,
      json: { parts: [{ type: 'text', text: 'hire' }] },
    });
    const events = await ended(sessionId);
    expect(events.some((event) => event.type === 'approval.requested')).toBe(false);
    const result = events.find((event) => event.type === 'tool.result') as Extract<SessionEvent, { type: 'tool.result' }>;
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.output)).toContain('you have no approver \\"nobody\\"');
    expect(events.at(-1)).toMatchObject({ type: 'turn.completed' });
  });
});

describe('a graph approval node with approvers', () => {
  test('the node waits for the quorum; the decision picks the branch', async () => {
    const { name } = await env.deploy({
      workflows: {
        payout: {
          start: 'ask',
          nodes: {
            ask: {
              type: 'approval',
              question: 'Release the payout?',
              options: ['approve', 'deny'],
              approvers: ['alice', 'bob'],
              quorum: 'all',
              next: {},
            },
          },
        },
      },
    });
    const started = await call<{ runId: string; sessionId: string }>(`${env.api.url}/agent/${name}/workflow/payout`, {
      headers: env.user.auth,
      json: {},
    });
    expect(started.status, started.text).toBeLessThan(300);
    const approval = await approvalOf(await askedIn(started.body.sessionId));
    expect(approval).toMatchObject({ quorum: 2 });
    expect((await voteAs(approval, 'alice', 'approve')).status).toBe(202);
    expect((await voteAs(approval, 'bob', 'approve')).status).toBe(200);
    const events = await env.waitForEvents(
      started.body.sessionId,
      (all) => all.some((event) => event.type === 'workflow.completed'),
      30_000,
    );
    expect(events.find((event) => event.type === 'approval.answered')).toMatchObject({ choice: 'approve', approver: 'bob' });
  });
});

describe('deploy', () => {
  test('an approver or group the directory lacks, and a quorum past the approvers, are located errors', async () => {
    const deployed = await call<{ errors: Array<{ path: string; message: string }> }>(`${env.api.url}/deploy`, {
      headers: { ...env.user.auth, 'content-type': 'application/jsonc' },
      body: JSON.stringify({
        name: 'team-policies-bad',
        model: { providerId: 'openai-compatible', modelId: 'fake-model' },
        mcps: ['http'],
        toolPolicies: { http: { http_request: { ask: { approvers: ['alice', 'zed'] } } } },
        workflows: {
          w: {
            start: 'a',
            nodes: {
              a: { type: 'approval', question: 'q?', options: ['yes', 'no'], approvers: ['group:nobody', 'bob'], quorum: 2, next: {} },
            },
          },
        },
      }),
    });
    expect(deployed.status, deployed.text).toBe(400);
    expect(deployed.body.errors).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ path: '/toolPolicies/http/http_request/ask/approvers/1', message: expect.stringContaining('"zed"') }),
        expect.objectContaining({ path: '/workflows/w/nodes/a/approvers/0', message: expect.stringContaining('"nobody"') }),
      ]),
    );
    const badRule = await call<{ errors: Array<{ path: string }> }>(`${env.api.url}/deploy`, {
      headers: { ...env.user.auth, 'content-type': 'application/jsonc' },
      body: JSON.stringify({
        name: 'team-policies-bad-rule',
        model: { providerId: 'openai-compatible', modelId: 'fake-model' },
        mcps: ['http'],
        toolPolicies: { http: { http_request: { ask: { approvers: ['alice', 'bob'], quorum: 3 } } } },
      }),
    });
    expect(badRule.status, badRule.text).toBe(400);
    expect(badRule.body.errors).toEqual([expect.objectContaining({ path: '/toolPolicies/http/http_request/ask/quorum' })]);
  });
});
