// Durable approvals end to end, through real turns: the model calls ask_my_user, the session waits,
// the answer (API or signed link) resumes the turn and the model's next step sees the choice.
// Also: the approvals API, expiry, signed-link safety against tampering and link previews, and
// webhook events.
import { describe, expect } from 'vitest';
import type { AgentEnv } from '../helpers/harness/agent-env.ts';
import { agentWithHooksTest } from '../helpers/harness/fixtures.ts';
import { createTestUser } from '../helpers/harness/users.ts';
import { call } from '../helpers/client/request.ts';
import { BROWSER_USER_AGENT, CLICK_HEADERS, SCANNER_HEADERS, openLink } from '../helpers/client/browser-headers.ts';
import { verifyWebhook, type WebhookEvent } from '../../lib/webhook-signature.ts';
import { approvalToken } from '../../lib/approval-token.ts';
import { parseMasterKey } from '../../lib/master-key.ts';
import { askInTurn } from '../helpers/harness/ask-in-turn.ts';
import { startTestApi } from '../helpers/harness/api.ts';
import { startTestWorker } from '../helpers/harness/worker.ts';
import { approvalWorkflowId } from '../../lib/workflow-safe/workflow-ids.ts';

const test = agentWithHooksTest({ OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8', WEBHOOK_RETRY_SCHEDULE_MS: '300,300' }, [
  'approval.requested',
  'approval.answered',
  'approval.expired',
]);

interface ApprovalBody {
  id: string;
  status: string;
  choice: string | null;
  note: string | null;
  answeredVia: string | null;
  options: string[];
  token: string;
  links: { page: string; options: Array<{ option: string; url: string }> };
}

/** A session whose turn calls ask_my_user with `input`, then (resumed) says `reply`. */
const askInSession = (env: AgentEnv, input: Record<string, unknown>, reply = 'Done.') => askInTurn(env, { input, reply });

const getApproval = (env: AgentEnv, id: string, query = '') =>
  call<ApprovalBody>(`${env.api.url}/approval/${id}${query}`, { headers: env.user.auth });
const answer = (env: AgentEnv, id: string, body: unknown, headers = env.user.auth) =>
  call<ApprovalBody & { answeredAt: string }>(`${env.api.url}/approval/${id}/answer`, { headers, json: body });

/** The tool message the model received in its step after the approval. */
function toolMessageSeenByModel(env: AgentEnv, toolCallId: string): unknown {
  for (const request of [...env.fake.requests].reverse()) {
    const message = request.body.messages.find((item) => item.role === 'tool' && item.tool_call_id === toolCallId);
    if (message) return typeof message.content === 'string' ? JSON.parse(message.content) : message.content;
  }
  return undefined;
}

describe('ask_my_user in a turn', () => {
  test('the session waits; an API answer resumes the turn and the model sees the choice', async ({ env }) => {
    const { sessionId, requested } = await askInSession(
      env,
      { question: 'Deploy v2 to production now? It changes billing for 40 customers.', options: ['approve', 'reject'] },
      'Deployed.',
    );
    expect(requested).toMatchObject({ question: expect.stringContaining('Deploy v2'), options: ['approve', 'reject'], source: 'tool' });
    expect(requested).not.toHaveProperty('links');
    const declared = env.fake.requests.at(-1)!.body.tools!.map((tool) => tool.function.name);
    expect(declared).toContain('ask_my_user');

    const session = await call<{ status: string }>(`${env.api.url}/session/${sessionId}`, { headers: env.user.auth });
    expect(session.body.status).toBe('waiting');
    const pending = await getApproval(env, requested.approvalId);
    expect(pending.body).toMatchObject({ status: 'unanswered', options: ['approve', 'reject'], sessionId });

    const first = await answer(env, requested.approvalId, { choice: 'Approve', note: 'go ahead' });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ status: 'answered', choice: 'approve', note: 'go ahead' });
    const second = await answer(env, requested.approvalId, { choice: 'reject' });
    expect(second.status).toBe(409);

    const events = await env.waitForEvents(sessionId, (all) => all.some((event) => event.type === 'turn.completed'));
    const types = events.map((event) => event.type);
    expect(types.indexOf('approval.answered')).toBeGreaterThan(types.indexOf('approval.requested'));
    expect(events.find((event) => event.type === 'tool.result')).toMatchObject({ output: { choice: 'approve', note: 'go ahead' } });
    expect(toolMessageSeenByModel(env, 'call_ask')).toEqual({ choice: 'approve', note: 'go ahead' });
    const stored = await getApproval(env, requested.approvalId);
    expect(stored.body).toMatchObject({ status: 'answered', choice: 'approve', answeredVia: 'api' });
    const after = await call<{ status: string }>(`${env.api.url}/session/${sessionId}`, { headers: env.user.auth });
    expect(after.body.status).toBe('idle');
  });

  test('expiry: the model is told, a later answer is 410', async ({ env }) => {
    const { sessionId, requested } = await askInSession(env, {
      question: 'Approve the refund of 20 EUR to order 1234?',
      expiresInMs: 1500,
    });
    expect(requested.options).toEqual(['yes', 'no']);
    const events = await env.waitForEvents(sessionId, (all) => all.some((event) => event.type === 'turn.completed'));
    expect(events.some((event) => event.type === 'approval.expired')).toBe(true);
    expect(toolMessageSeenByModel(env, 'call_ask')).toMatchObject({ status: 'expired' });
    expect((await getApproval(env, requested.approvalId)).body.status).toBe('expired');
    expect((await answer(env, requested.approvalId, { choice: 'yes' })).status).toBe(410);
    const { links } = (await getApproval(env, requested.approvalId)).body;
    expect((await openLink(links.options[0]!.url)).status).toBe(410);
  });

  test('input the tool cannot take is an error result the model reads, and nothing waits', async ({ env }) => {
    const sessionId = await env.newSession();
    env.fake.enqueue(
      { toolCalls: [{ id: 'call_bad', name: 'ask_my_user', arguments: { question: 'Pick', options: ['1', '2'] } }] },
      { text: 'ok' },
    );
    await call(`${env.api.url}/session/${sessionId}?async=1`, { headers: env.user.auth, json: { parts: [{ type: 'text', text: 'Go' }] } });
    const events = await env.waitForEvents(sessionId, (all) => all.some((event) => event.type === 'turn.completed'));
    expect(events.some((event) => event.type === 'approval.requested')).toBe(false);
    expect(events.find((event) => event.type === 'tool.result')).toMatchObject({
      isError: true,
      output: { error: expect.stringContaining('bare number') },
    });
  });
});

describe('the approvals API', () => {
  test('create, wait, answer; 400 outside the options; 403 for another user; 404 unknown', async ({ env }) => {
    const created = await call<ApprovalBody & { expiresAt: string }>(`${env.api.url}/approval`, {
      headers: env.user.auth,
      json: { question: 'Send the quarterly report to the board?', options: ['send', 'hold'], expiresInMs: 60_000 },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ status: 'unanswered', options: ['send', 'hold'] });
    const id = created.body.id;
    expect(Date.parse(created.body.expiresAt) - Date.now()).toBeGreaterThan(50_000);

    const quick = await getApproval(env, id, '?wait=0');
    expect(quick.body.status).toBe('unanswered');
    const waiting = getApproval(env, id, '?wait=20');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await answer(env, id, { choice: 'maybe' })).status).toBe(400);
    const other = await createTestUser(env.api.db);
    expect((await answer(env, id, { choice: 'send' }, other.auth)).status).toBe(403);
    expect((await call(`${env.api.url}/approval/${id}`, { headers: other.auth })).status).toBe(403);
    expect((await answer(env, id, { choice: 'send' })).status).toBe(200);
    const waited = await waiting;
    expect(waited.body).toMatchObject({ status: 'answered', choice: 'send' });

    // A key that may read but not answer never sees what would answer.
    const reader = await call<{ apiKey?: string; key: string }>(`${env.api.url}/key`, {
      headers: env.user.auth,
      json: { scopes: ['read'] },
    });
    const readOnly = await call<Record<string, unknown>>(`${env.api.url}/approval/${id}`, {
      headers: { authorization: `Bearer ${reader.body.key}` },
    });
    expect(readOnly.status).toBe(200);
    expect(readOnly.body).toMatchObject({ id, status: 'answered' });
    expect(readOnly.body).not.toHaveProperty('token');
    expect(readOnly.body).not.toHaveProperty('links');
    expect((await getApproval(env, id)).body.token).toMatch(/^apr_[0-9a-z]{26}\.[0-9a-z]{20}$/);

    expect((await getApproval(env, 'apr_0000000000000000000000000')).status).toBe(404);
    const listed = await call<{ approvals: ApprovalBody[] }>(`${env.api.url}/approval?status=answered`, { headers: env.user.auth });
    expect(listed.body.approvals.map((approval) => approval.id)).toContain(id);
    expect(listed.body.approvals.every((approval) => approval.status === 'answered')).toBe(true);
  });

  test('bad requests are 400 with the reason', async ({ env }) => {
    const bad = [
      { question: '' },
      { question: 'ok?', options: [] },
      { question: 'ok?', options: ['Yes', 'yes'] },
      { question: 'ok?', expiresInMs: 10 },
      { question: 'ok?', unknown: true },
    ];
    for (const body of bad) {
      const response = await call(`${env.api.url}/approval`, { headers: env.user.auth, json: body });
      expect(response.status, JSON.stringify(body)).toBe(400);
    }
    expect((await call(`${env.api.url}/approval`, { headers: env.user.auth, json: { question: 'ok?', agent: 'nope' } })).status).toBe(404);
  });
});

describe('signed links', () => {
  async function create(env: AgentEnv, question = 'Publish the blog post "Q3 results" now?') {
    const created = await call<ApprovalBody>(`${env.api.url}/approval`, { headers: env.user.auth, json: { question } });
    return created.body;
  }

  test('a click answers in one click; the page shows the question; a second click is 409', async ({ env }) => {
    const approval = await create(env);
    const page = await fetch(approval.links.page, { headers: { 'user-agent': BROWSER_USER_AGENT } });
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('Publish the blog post &#34;Q3 results&#34; now?');
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');

    const yes = await openLink(approval.links.options[0]!.url);
    expect(yes.status).toBe(200);
    expect(yes.text).toContain('is recorded');
    const no = await openLink(approval.links.options[1]!.url);
    expect(no.status).toBe(409);
    expect((await getApproval(env, approval.id)).body).toMatchObject({ status: 'answered', choice: 'yes', answeredVia: 'link' });
  });

  test('the page form posts the answer with a note', async ({ env }) => {
    const approval = await create(env);
    const response = await fetch(approval.links.page, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'user-agent': BROWSER_USER_AGENT },
      body: 'choice=no&note=not+before+Monday',
    });
    expect(response.status).toBe(200);
    expect((await getApproval(env, approval.id)).body).toMatchObject({ choice: 'no', note: 'not before Monday' });
  });

  test("a mail scanner's GET with a browser's User-Agent answers nothing; the person's click after it does", async ({ env }) => {
    const approval = await create(env);
    const url = approval.links.options[1]!.url;
    // Scanners fetch every link, some as a navigation, but none as one a person set off.
    for (const headers of [SCANNER_HEADERS, { ...SCANNER_HEADERS, 'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'document' }]) {
      const scanned = await openLink(url, headers);
      expect(scanned.status).toBe(200);
      expect(scanned.text).toContain('Confirm your answer');
    }
    expect((await getApproval(env, approval.id)).body.status).toBe('unanswered');
    const clicked = await openLink(url);
    expect(clicked.status).toBe(200);
    expect((await getApproval(env, approval.id)).body).toMatchObject({ status: 'answered', choice: 'no', answeredVia: 'link' });
  });

  test('link previews and HEAD never answer', async ({ env }) => {
    const approval = await create(env);
    const url = approval.links.options[0]!.url;
    for (let i = 0; i < 5; i++) {
      expect((await openLink(url, CLICK_HEADERS, 'HEAD')).status).toBe(200);
    }
    const previews = [
      'Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)',
      'TelegramBot (like TwitterBot)',
      'facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)',
      'Mozilla/5.0 (compatible; Discordbot/2.0; +https://discordapp.com)',
      'WhatsApp/2.23.20.0',
    ];
    for (const agent of previews) {
      const response = await openLink(url, { ...CLICK_HEADERS, 'user-agent': agent });
      expect(response.status).toBe(200);
      expect(response.text).toContain('Confirm your answer');
    }
    expect((await getApproval(env, approval.id)).body.status).toBe('unanswered');
  });

  test('a tampered or foreign token is 404 and writes nothing', async ({ env }) => {
    const approval = await create(env);
    const [id, signature] = approval.token.split('.') as [string, string];
    const flipped = signature.slice(0, -1) + (signature.endsWith('a') ? 'b' : 'a');
    const foreign = approvalToken(parseMasterKey('another-service-master-key-0123456789abcdef'), approval.id);
    for (const token of [`${id}.${flipped}`, foreign, 'not-a-token', `${id}.${signature}x`, `${id.toUpperCase()}.${flipped}`]) {
      const url = `${env.api.url}/approval/${encodeURIComponent(token)}/answer?choice=yes`;
      expect((await openLink(url)).status, token).toBe(404);
      expect((await fetch(url, { method: 'POST', headers: { accept: 'application/json' } })).status, token).toBe(404);
    }
    // A bare id is the keyed form of the same path: without a key it is 401, not an answer.
    expect((await fetch(`${env.api.url}/approval/${id}/answer?choice=yes`, { method: 'POST' })).status).toBe(401);
    expect((await openLink(`${env.api.url}/approval/${id}/answer?choice=yes`)).status).toBe(404);
    // A mistyped id (no id the service could have made) is taken for a link's token; its 404 speaks of both.
    const mistyped = await call(`${env.api.url}/approval/apr_123/answer`, {
      headers: { ...env.user.auth, accept: 'application/json' },
      json: { choice: 'yes' },
    });
    expect(mistyped.status).toBe(404);
    expect(mistyped.text).toContain('No approval has this id or answer link');
    expect((await getApproval(env, approval.id)).body.status).toBe('unanswered');
  });
});

describe('webhook events', () => {
  test('approval.requested and approval.answered are delivered, signed', async ({ env, hooks }) => {
    const created = await call<ApprovalBody>(`${env.api.url}/approval`, { headers: env.user.auth, json: { question: 'Webhook check?' } });
    await answer(env, created.body.id, { choice: 'no' });
    const deadline = Date.now() + 15_000;
    let mine: WebhookEvent[] = [];
    while (Date.now() < deadline) {
      mine = hooks.requests
        .map((request) => verifyWebhook({ secret: hooks.secret, headers: request.headers, body: request.body }))
        .filter((event) => (event.data as { approvalId?: string }).approvalId === created.body.id);
      if (mine.length >= 2) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(mine.map((event) => event.type).sort()).toEqual(['approval.answered', 'approval.requested']);
    expect(mine.find((event) => event.type === 'approval.answered')!.data).toMatchObject({ choice: 'no', sessionId: null });
  });
});

describe('without a worker', () => {
  test('an approval is created, listed and answered at once with no worker; its workflow takes both once one runs', async ({ env }) => {
    // An API on a queue nobody polls yet, sharing the database (so env's user and session are its too).
    const taskQueue = `approvals-no-worker-${Date.now()}`;
    const lonely = await startTestApi({ TASK_QUEUE: taskQueue });
    try {
      const sessionId = await env.newSession();
      const started = performance.now();
      const created = await call<ApprovalBody & { sessionId: string; expiresAt: string }>(`${lonely.url}/approval`, {
        headers: env.user.auth,
        json: { question: 'Anyone there?', sessionId, expiresInMs: 600_000 },
      });
      expect(created.status, created.text).toBe(201);
      // Taken by the API, not by a worker: it is readable and listed at once.
      expect(created.body).toMatchObject({ status: 'unanswered', question: 'Anyone there?', sessionId });
      expect(Date.parse(created.body.expiresAt)).toBeGreaterThan(Date.now() + 590_000);
      expect(performance.now() - started).toBeLessThan(5_000);
      const listed = await call<{ approvals: ApprovalBody[] }>(`${lonely.url}/approval`, { headers: env.user.auth });
      expect(listed.body.approvals.map((approval) => approval.id)).toContain(created.body.id);
      const requested = (await env.events(sessionId)).filter((event) => event.type === 'approval.requested');
      expect(requested).toEqual([expect.objectContaining({ approvalId: created.body.id, source: 'api' })]);
      const answered = await call(`${lonely.url}/approval/${created.body.id}/answer`, { headers: env.user.auth, json: { choice: 'no' } });
      expect(answered.status, answered.text).toBe(200);

      const worker = await startTestWorker({ ...env.env, TASK_QUEUE: taskQueue });
      try {
        const outcome = await worker.client.workflow.getHandle(approvalWorkflowId(created.body.id)).result();
        expect(outcome).toMatchObject({ status: 'answered', choice: 'no' });
        // The workflow found the record written: the session's request event is there once.
        const events = await env.events(sessionId);
        expect(events.filter((event) => event.type === 'approval.requested')).toHaveLength(1);
        expect(events.filter((event) => event.type === 'approval.answered')).toHaveLength(1);
      } finally {
        await worker.stop();
      }
    } finally {
      await lonely.close();
    }
  });

  test('an approval asked while the workflow engine cannot be reached is 503 naming it, and nothing is recorded', async ({ env }) => {
    const lonely = await startTestApi({ TEMPORAL_ADDRESS: '127.0.0.1:1', APPROVAL_CONFIRM_TIMEOUT_MS: '1000' });
    try {
      const created = await call<{ detail: string }>(`${lonely.url}/approval`, {
        headers: env.user.auth,
        json: { question: 'Anyone there?' },
      });
      expect(created.status, created.text).toBe(503);
      expect(created.body.detail).toMatch(/^Approval apr_[0-9a-z]{26} was not taken in time/);
      const id = /^Approval (apr_[0-9a-z]{26})/.exec(created.body.detail)![1]!;
      expect((await getApproval(env, id)).status).toBe(404);
    } finally {
      await lonely.close();
    }
  });
});
