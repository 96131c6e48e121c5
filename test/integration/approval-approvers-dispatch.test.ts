// Each approver of an approval a team answers is asked at their own addresses, with their own links:
// email, Slack and Telegram over the asking agent's channels of those kinds (its credentials, the
// approver's address), a webhook address directly. The user's own channels are used only when "me" is
// an approver. Every dispatch is recorded per approver; one without a channel to send from fails, named.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startAgentEnv, type AgentEnv } from '../helpers/harness/agent-env.ts';
import { startFakeSlack, type FakeSlack } from '../helpers/fakes/fake-slack.ts';
import { startFakeTelegram, type FakeTelegram } from '../helpers/fakes/fake-telegram.ts';
import { startSmtpSink, type SmtpSink } from '../helpers/fakes/smtp-sink.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/fakes/webhook-receiver.ts';
import { call } from '../helpers/client/request.ts';
import { until } from '../helpers/harness/workflow-env.ts';

let env: AgentEnv;
let slack: FakeSlack;
let telegram: FakeTelegram;
let sink: SmtpSink;
let hooks: WebhookReceiver;

beforeAll(async () => {
  [slack, telegram, sink, hooks] = await Promise.all([startFakeSlack(), startFakeTelegram(), startSmtpSink(), startWebhookReceiver()]);
  env = await startAgentEnv({
    OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8',
    SMTP_PLAINTEXT_LOOPBACK: 'on',
    SLACK_API_BASE_URL: slack.baseUrl,
    TELEGRAM_API_BASE_URL: telegram.baseUrl,
    APPROVAL_DISPATCH_RETRY_INITIAL_MS: '100',
    APPROVAL_DISPATCH_MAX_ATTEMPTS: '2',
  });
});

afterAll(async () => {
  await env?.close();
  await Promise.all([slack?.close(), telegram?.close(), sink?.close(), hooks?.close()]);
});

interface ApproverView {
  name: string;
  vote: { choice: string } | null;
  links: { page: string };
  dispatches: Array<{ provider: string; status: string; attempts: number; error: string | null }>;
}

interface TeamApproval {
  id: string;
  status: string;
  choice: string | null;
  approvers: ApproverView[];
  dispatches: Array<{ provider: string; status: string }>;
}

const unique = () => randomUUID().slice(0, 8);

async function put(path: string, json: unknown): Promise<void> {
  const response = await call(`${env.api.url}${path}`, { method: 'PUT', headers: env.user.auth, json });
  expect(response.status, response.text).toBeLessThan(300);
}

const read = async (id: string) => (await call<TeamApproval>(`${env.api.url}/approval/${id}`, { headers: env.user.auth })).body;

/** Polls until no approver's dispatch is pending. */
async function settled(id: string): Promise<TeamApproval> {
  let approval = await read(id);
  await until(
    'every approver dispatch to settle',
    async () => {
      approval = await read(id);
      return approval.approvers.every((seat) => seat.dispatches.every((dispatch) => dispatch.status !== 'pending'));
    },
    15_000,
  );
  return approval;
}

/** A link in `text` that answers as the approver its token names (`.s<seat>.`), with the option chosen. */
function seatLink(text: string, seat: number, option: string): string {
  const links = [...text.matchAll(/https?:\/\/[^\s"<>)\]]+/g)].map((match) => match[0]);
  const found = links.find((link) => link.includes(`.s${seat}.`) && link.endsWith(`choice=${option}`));
  if (!found) throw new Error(`no link of seat ${seat} for ${option} in: ${text.slice(0, 500)}`);
  return found;
}

const vote = (link: string) =>
  call<{ status: string; approver: string }>(link.split('?')[0]!, {
    headers: { accept: 'application/json' },
    json: { choice: new URL(link).searchParams.get('choice') },
  });

describe('approvers asked at their own addresses', () => {
  test("email, Slack and Telegram over the agent's channels, pointed at each approver; their links vote as them", async () => {
    const id = unique();
    await put(`/secret/SMTP_PASS_${id}`, { value: 'pw' });
    await put(`/secret/SLACK_TOKEN_${id}`, { value: 'xoxb-test' });
    await put(`/secret/TG_TOKEN_${id}`, { value: '123:tg' });
    const { name } = await env.deploy({
      secretGrants: [`SMTP_PASS_${id}`, `SLACK_TOKEN_${id}`, `TG_TOKEN_${id}`],
      userChannels: [
        {
          provider: 'email',
          answerVia: 'signed-url',
          config: {
            host: sink.host,
            port: sink.port,
            user: 'bot@agents.test',
            pass: `{{secrets.SMTP_PASS_${id}}}`,
            from: 'bot@agents.test',
            to: 'owner@example.test',
          },
        },
        { provider: 'slack', answerVia: 'signed-url', config: { token: `{{secrets.SLACK_TOKEN_${id}}}`, channel: 'C0OWNER01' } },
        { provider: 'telegram', answerVia: 'signed-url', config: { botToken: `{{secrets.TG_TOKEN_${id}}}`, chatId: 1 } },
      ],
    });
    await put(`/approver/alice-${id}`, { email: `alice-${id}@example.test`, webhook: { url: `${hooks.url}/alice-${id}` } });
    await put(`/approver/bob-${id}`, { slack: { userId: 'U0BOB0001' } });
    await put(`/approver/carol-${id}`, { telegram: { chatId: '424242' } });
    const question = `Wire 9,000 EUR to the supplier? (${id})`;
    const created = await call<TeamApproval>(`${env.api.url}/approval`, {
      headers: env.user.auth,
      json: {
        question,
        agent: name,
        options: ['approve', 'deny'],
        approvers: [`alice-${id}`, `bob-${id}`, `carol-${id}`],
        quorum: 2,
        denyWins: false,
      },
    });
    expect(created.status, created.text).toBe(201);

    const approval = await settled(created.body.id);
    // "me" is no approver: the user's own channels are not asked.
    expect(approval.dispatches).toEqual([]);
    expect(approval.approvers.map((seat) => seat.dispatches.map((dispatch) => `${dispatch.provider}:${dispatch.status}`))).toEqual([
      ['email:sent', 'webhook:sent'],
      ['slack:sent'],
      ['telegram:sent'],
    ]);
    const mail = sink.mails.find((candidate) => candidate.subject?.includes(id) || candidate.text?.includes(id))!;
    expect(mail.envelope.to).toEqual([`alice-${id}@example.test`]);
    expect(mail.login).toEqual({ username: 'bot@agents.test', password: 'pw' });
    const slackCall = slack.calls.find((candidate) => candidate.raw.includes(id))!;
    expect(slackCall.body).toMatchObject({ channel: 'U0BOB0001' });
    expect(JSON.stringify(slackCall.body?.blocks)).toContain('Several approvers decide: 2 votes for one option.');
    const telegramCall = telegram.calls.find((candidate) => candidate.raw.includes(id))!;
    expect(telegramCall.body).toMatchObject({ chat_id: '424242' });
    expect(telegramCall.token).toBe('123:tg');
    const hook = hooks.requests.find((request) => request.path.endsWith(`/alice-${id}`))!;
    expect(JSON.parse(hook.body)).toMatchObject({ type: 'approval.requested', approval: { id: approval.id, question } });
    // Each message says where the decision stands.
    expect(mail.text).toContain('Several approvers decide: 2 votes for one option.');
    expect(mail.text).toMatch(/So far: 0 of 2 answers; waiting on alice-\w+, bob-\w+, carol-\w+\./);
    // Each approver got only their own links: alice's in her mail and webhook, bob's in Slack.
    expect(mail.text).not.toContain('.s1.');
    expect(slackCall.raw).not.toContain('.s0.');

    expect((await vote(seatLink(mail.text!, 0, 'approve'))).body).toMatchObject({ status: 'unanswered', approver: `alice-${id}` });
    // Bob's page (looked at, not clicked) says whom it answers as and where the decision stands.
    const page = await call(seatLink(slackCall.raw, 1, 'approve').split('?')[0]!, { headers: { accept: 'text/html' } });
    expect(page.text).toContain(`You answer as <strong>bob-${id}</strong>`);
    expect(page.text).toMatch(/So far: 1 of 2 approve; waiting on bob-\w+, carol-\w+\./);
    expect((await vote(seatLink(slackCall.raw, 1, 'approve'))).body).toMatchObject({ status: 'answered', approver: `bob-${id}` });
    const decided = await read(approval.id);
    expect(decided).toMatchObject({ status: 'answered', choice: 'approve' });
    // Carol's link no longer counts.
    expect((await vote(seatLink(telegramCall.raw, 2, 'deny'))).status).toBe(409);
  });

  test('an approver whose address has no channel to send from is recorded as failed; a webhook address needs none', async () => {
    const id = unique();
    await put(`/approver/dora-${id}`, { email: `dora-${id}@example.test`, webhook: { url: `${hooks.url}/dora-${id}` } });
    // No agent: no channel at all, so the email cannot go; the webhook does, unsigned.
    const created = await call<TeamApproval>(`${env.api.url}/approval`, {
      headers: env.user.auth,
      json: { question: `Ship it? (${id})`, approvers: ['me', `dora-${id}`], quorum: 2 },
    });
    expect(created.status, created.text).toBe(201);
    const approval = await settled(created.body.id);
    const dora = approval.approvers[1]!;
    expect(dora.dispatches).toEqual([
      expect.objectContaining({ provider: 'email', status: 'failed', error: expect.stringContaining('no email channel') }),
      expect.objectContaining({ provider: 'webhook', status: 'sent' }),
    ]);
    const hook = hooks.requests.find((request) => request.path.endsWith(`/dora-${id}`))!;
    expect(hook.headers['webhook-signature']).toBeUndefined();
    const links = (JSON.parse(hook.body) as { links: { options: Array<{ option: string; url: string }> } }).links.options;
    expect(links.every((link) => link.url.includes('.s1.'))).toBe(true);
    expect((await vote(links.find((link) => link.option === 'yes')!.url)).body).toMatchObject({ approver: `dora-${id}` });
  });
});
