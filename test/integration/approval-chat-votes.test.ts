// A chat reply votes on an approval a team answers only as the approver it comes from: Slack says who
// wrote a reply (`event.user`), Telegram too (`from.id`), and each approver's seat keeps where they were
// asked. In an approver's own message only that approver; in the thread of the question on the user's
// channel, any approver whose address wrote it. Anyone else is told so in the thread, and nothing is
// recorded; a second reply of the same approver is refused the same way.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startAgentEnv, type AgentEnv } from '../helpers/harness/agent-env.ts';
import { startFakeSlack, type FakeSlack, type SlackCall } from '../helpers/fakes/fake-slack.ts';
import { startFakeTelegram, type FakeTelegram, type TelegramCall } from '../helpers/fakes/fake-telegram.ts';
import { call } from '../helpers/client/request.ts';
import { until } from '../helpers/harness/workflow-env.ts';
import { slackSignature } from '../../api/inbound/slack.ts';
import { REPLY_TOO_INSTRUCTIONS } from '../../activities/channels/approval-message.ts';
import { escalate } from '../../store/approval-votes.ts';

const SIGNING_SECRET = `sign-${randomUUID()}`;
const TELEGRAM_SECRET = `tg-${randomUUID()}`;

let env: AgentEnv;
let slack: FakeSlack;
let telegram: FakeTelegram;

beforeAll(async () => {
  [slack, telegram] = await Promise.all([startFakeSlack(), startFakeTelegram()]);
  env = await startAgentEnv({
    OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8',
    SLACK_API_BASE_URL: slack.baseUrl,
    TELEGRAM_API_BASE_URL: telegram.baseUrl,
    APPROVAL_DISPATCH_RETRY_INITIAL_MS: '100',
    APPROVAL_DISPATCH_MAX_ATTEMPTS: '2',
  });
});

afterAll(async () => {
  await env?.close();
  await Promise.all([slack?.close(), telegram?.close()]);
});

interface ApproverView {
  name: string;
  vote: { choice: string; note: string | null; via: string } | null;
  dispatches: Array<{ provider: string; status: string }>;
}

interface TeamApproval {
  id: string;
  status: string;
  choice: string | null;
  decidedBy: string | null;
  approvers: ApproverView[];
  dispatches: Array<{ provider: string; status: string }>;
}

interface InboundAnswer {
  ok: boolean;
  answered: boolean;
  status?: string;
  approver?: string;
  reason?: string;
}

const unique = () => randomUUID().slice(0, 8);

async function put(path: string, json: unknown): Promise<void> {
  const response = await call(`${env.api.url}${path}`, { method: 'PUT', headers: env.user.auth, json });
  expect(response.status, response.text).toBeLessThan(300);
}

const read = async (id: string) => (await call<TeamApproval>(`${env.api.url}/approval/${id}`, { headers: env.user.auth })).body;

/** Polls until no dispatch, the user's or an approver's, is pending. */
async function settled(id: string): Promise<TeamApproval> {
  let approval = await read(id);
  await until(
    'every dispatch to settle',
    async () => {
      approval = await read(id);
      return [...approval.dispatches, ...approval.approvers.flatMap((seat) => seat.dispatches)].every(
        (dispatch) => dispatch.status !== 'pending',
      );
    },
    15_000,
  );
  return approval;
}

/** An agent whose Slack and Telegram channels can authenticate replies. */
async function deployChatAgent(id: string): Promise<string> {
  await put(`/secret/SLACK_TOKEN_${id}`, { value: 'xoxb-test' });
  await put(`/secret/SLACK_SIGNING_${id}`, { value: SIGNING_SECRET });
  await put(`/secret/TG_TOKEN_${id}`, { value: '123:tg' });
  await put(`/secret/TG_SECRET_${id}`, { value: TELEGRAM_SECRET });
  const { name } = await env.deploy({
    secretGrants: [`SLACK_TOKEN_${id}`, `SLACK_SIGNING_${id}`, `TG_TOKEN_${id}`, `TG_SECRET_${id}`],
    userChannels: [
      {
        provider: 'slack',
        answerVia: 'signed-url',
        config: { token: `{{secrets.SLACK_TOKEN_${id}}}`, channel: 'C0OWNER01', signingSecret: `{{secrets.SLACK_SIGNING_${id}}}` },
      },
      {
        provider: 'telegram',
        answerVia: 'signed-url',
        config: { botToken: `{{secrets.TG_TOKEN_${id}}}`, chatId: 1, secretToken: `{{secrets.TG_SECRET_${id}}}` },
      },
    ],
  });
  return name;
}

async function ask(agent: string, question: string, approvers: string[], quorum: number): Promise<TeamApproval> {
  const created = await call<TeamApproval>(`${env.api.url}/approval`, {
    headers: env.user.auth,
    json: { question, agent, options: ['approve', 'deny'], approvers, quorum, denyWins: false },
  });
  expect(created.status, created.text).toBe(201);
  return settled(created.body.id);
}

/** The `<channel>:<ts>` of the Slack message whose text holds `marker`, sent to `channel`. */
function slackMessage(marker: string, channel: string): { call: SlackCall; ts: string } {
  const found = slack.calls.find((candidate) => candidate.body?.channel === channel && candidate.raw.includes(marker));
  if (!found) throw new Error(`no Slack message to ${channel} about ${marker}`);
  return { call: found, ts: (found.answer as { ts: string }).ts };
}

function telegramMessage(marker: string, chatId: string): { call: TelegramCall; messageId: number } {
  const found = telegram.calls.find((candidate) => String(candidate.body?.chat_id) === chatId && candidate.raw.includes(marker));
  if (!found) throw new Error(`no Telegram message to ${chatId} about ${marker}`);
  return { call: found, messageId: (found.answer as { result: { message_id: number } }).result.message_id };
}

async function slackReply(channel: string, threadTs: string, user: string, text: string) {
  const body = JSON.stringify({
    type: 'event_callback',
    event_id: `Ev${unique()}`,
    event: {
      type: 'message',
      channel,
      user,
      text,
      ts: `1700009999.${String(Date.now() % 1_000_000).padStart(6, '0')}`,
      thread_ts: threadTs,
    },
  });
  const timestamp = String(Math.floor(Date.now() / 1000));
  return call<InboundAnswer>(`${env.api.url}/inbound/slack`, {
    headers: {
      'content-type': 'application/json',
      'x-slack-request-timestamp': timestamp,
      'x-slack-signature': slackSignature(SIGNING_SECRET, timestamp, body),
    },
    body,
  });
}

async function telegramReply(chatId: string, fromId: string, repliedTo: number, text: string) {
  const body = JSON.stringify({
    update_id: Math.floor(Math.random() * 1e9),
    message: {
      message_id: 9000,
      date: Math.floor(Date.now() / 1000),
      chat: { id: Number(chatId), type: 'private' },
      from: { id: Number(fromId), is_bot: false, first_name: 'Dan' },
      text,
      reply_to_message: { message_id: repliedTo, date: 1_700_000_000, chat: { id: Number(chatId), type: 'private' }, text: 'Question…' },
    },
  });
  return call<InboundAnswer>(`${env.api.url}/inbound/telegram`, {
    headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': TELEGRAM_SECRET },
    body,
  });
}

/** Waits for a note in the Slack thread `ts` of `channel` that contains `text`. */
async function slackNote(channel: string, ts: string, text: string): Promise<void> {
  await until(
    `a note in the thread ${ts}`,
    async () =>
      slack.calls.some(
        (candidate) =>
          candidate.body?.channel === channel && candidate.body?.thread_ts === ts && String(candidate.body?.text).includes(text),
      ),
    15_000,
  );
}

describe('chat replies vote as the approver who wrote them', () => {
  test("in approvers' own messages: only the person each was sent to votes, once; Slack and Telegram decide together", async () => {
    const id = unique();
    const agent = await deployChatAgent(id);
    const [bob, carol, dan] = [`bob-${id}`, `carol-${id}`, `dan-${id}`];
    const danChat = String(600_000 + Math.floor(Math.random() * 1000));
    await put(`/approver/${bob}`, { slack: { userId: 'U0BOB0001' } });
    await put(`/approver/${carol}`, { slack: { userId: 'U0CAROL01' } });
    await put(`/approver/${dan}`, { telegram: { chatId: danChat } });
    const approval = await ask(agent, `Rotate the production keys tonight? (${id})`, [bob, carol, dan], 2);
    expect(approval.approvers.map((seat) => seat.dispatches.map((dispatch) => `${dispatch.provider}:${dispatch.status}`))).toEqual([
      ['slack:sent'],
      ['slack:sent'],
      ['telegram:sent'],
    ]);

    // Each message says a reply answers too, under its buttons.
    const toBob = slackMessage(id, 'U0BOB0001');
    expect(JSON.stringify(toBob.call.body?.blocks)).toContain(REPLY_TOO_INSTRUCTIONS);
    const toDan = telegramMessage(id, danChat);
    expect(String(toDan.call.body?.text)).toContain(REPLY_TOO_INSTRUCTIONS);

    // Carol, replying in the thread of Bob's message, is not who it was sent to: refused, said there, nothing recorded.
    const byCarol = await slackReply('U0BOB0001', toBob.ts, 'U0CAROL01', 'approve');
    expect(byCarol.status, byCarol.text).toBe(200);
    expect(byCarol.body).toMatchObject({ answered: false, reason: expect.stringContaining('Only an approver') });
    await slackNote('U0BOB0001', toBob.ts, 'Only an approver');
    expect((await read(approval.id)).approvers.every((seat) => seat.vote === null)).toBe(true);

    // Bob's own reply is his vote, with its note, via Slack.
    const byBob = await slackReply('U0BOB0001', toBob.ts, 'U0BOB0001', 'approve - checked the runbook');
    expect(byBob.body).toMatchObject({ answered: false, status: 'unanswered', approver: bob });
    expect((await read(approval.id)).approvers[0]!.vote).toMatchObject({ choice: 'approve', note: 'checked the runbook', via: 'slack' });

    // His second reply is refused in the thread: the first vote stands.
    const again = await slackReply('U0BOB0001', toBob.ts, 'U0BOB0001', 'deny');
    expect(again.body).toMatchObject({ answered: false, reason: expect.stringContaining('already answered') });
    await slackNote('U0BOB0001', toBob.ts, 'already answered');

    // A Telegram reply to Dan's message from someone else in that chat is refused; Dan's own decides.
    const byStranger = await telegramReply(danChat, '777000', toDan.messageId, '1');
    expect(byStranger.body).toMatchObject({ answered: false, reason: expect.stringContaining('Only an approver') });
    const byDan = await telegramReply(danChat, danChat, toDan.messageId, '1');
    expect(byDan.body).toMatchObject({ answered: true, approver: dan });
    const decided = await read(approval.id);
    expect(decided).toMatchObject({ status: 'answered', choice: 'approve', decidedBy: dan });
    expect(decided.approvers.map((seat) => seat.vote?.via ?? null)).toEqual(['slack', null, 'telegram']);
    // The outcome is noted in each approver's own chat message too: Carol, who never answered, sees it.
    const toCarol = slackMessage(id, 'U0CAROL01');
    await slackNote('U0CAROL01', toCarol.ts, 'Answered: "approve" (via telegram)');
    await slackNote('U0BOB0001', toBob.ts, 'Answered: "approve"');
  });

  test('two approvers replying the same instant from Slack and Telegram: each vote recorded once, the decision once', async () => {
    const id = unique();
    const agent = await deployChatAgent(id);
    const [erin, finn] = [`erin-${id}`, `finn-${id}`];
    const finnChat = String(700_000 + Math.floor(Math.random() * 1000));
    await put(`/approver/${erin}`, { slack: { userId: 'U0ERIN001' } });
    await put(`/approver/${finn}`, { telegram: { chatId: finnChat } });
    for (let round = 0; round < 4; round++) {
      const marker = `${id}-${round}`;
      const approval = await ask(agent, `Ship release ${marker} to every region?`, [erin, finn], 2);
      const toErin = slackMessage(marker, 'U0ERIN001');
      const toFinn = telegramMessage(marker, finnChat);
      const [byErin, byFinn] = await Promise.all([
        slackReply('U0ERIN001', toErin.ts, 'U0ERIN001', 'approve'),
        telegramReply(finnChat, finnChat, toFinn.messageId, 'approve'),
      ]);
      expect([byErin.status, byFinn.status]).toEqual([200, 200]);
      // One of the two waited on the other, the other decided: which one is the race's to say.
      expect([byErin.body.answered, byFinn.body.answered].sort()).toEqual([false, true]);
      const decided = await read(approval.id);
      expect(decided).toMatchObject({ status: 'answered', choice: 'approve', tally: { approve: 2, deny: 0 } });
      expect(decided.decidedBy).toBe(byErin.body.answered ? erin : finn);
      expect(decided.approvers.map((seat) => seat.vote?.via ?? null)).toEqual(['slack', 'telegram']);
    }
  });

  test("in the thread of the user's channel: an approver's reply is their vote; anyone else's, the user's included, is not", async () => {
    const id = unique();
    const agent = await deployChatAgent(id);
    const erin = `erin-${id}`;
    await put(`/approver/${erin}`, { slack: { userId: 'U0ERIN001' } });
    const approval = await ask(agent, `Publish the release notes? (${id})`, ['me', erin], 2);
    const inChannel = slackMessage(id, 'C0OWNER01');

    const byOther = await slackReply('C0OWNER01', inChannel.ts, 'U0SOMEONE', 'approve');
    expect(byOther.body).toMatchObject({ answered: false, reason: expect.stringContaining('Only an approver') });
    await slackNote('C0OWNER01', inChannel.ts, 'Only an approver');

    const byErin = await slackReply('C0OWNER01', inChannel.ts, 'U0ERIN001', 'approve');
    expect(byErin.body).toMatchObject({ status: 'unanswered', approver: erin });
    // The user ("me") answers by key, and that decides.
    const mine = await call<{ status: string; approver: string }>(`${env.api.url}/approval/${approval.id}/answer`, {
      headers: env.user.auth,
      json: { choice: 'approve' },
    });
    expect(mine.status, mine.text).toBe(200);
    expect(await read(approval.id)).toMatchObject({ status: 'answered', choice: 'approve', decidedBy: 'me' });
  });

  test('an escalation that adds "me" asks on the user\'s own channels, with their links; run again, a step answers what it added', async () => {
    const id = unique();
    const agent = await deployChatAgent(id);
    const fay = `fay-${id}`;
    await put(`/approver/${fay}`, { slack: { userId: 'U0FAY0001' } });
    const created = await call<TeamApproval>(`${env.api.url}/approval`, {
      headers: env.user.auth,
      json: {
        question: `Renew the domain for five years? (${id})`,
        agent,
        options: ['approve', 'deny'],
        approvers: [fay],
        escalate: [{ afterMs: 1_500, to: ['me'] }],
      },
    });
    expect(created.status, created.text).toBe(201);
    // Not on the user's channels while "me" is no approver.
    expect((await read(created.body.id)).dispatches).toEqual([]);
    await until(
      "the question on the user's channel",
      async () => slack.calls.some((candidate) => candidate.body?.channel === 'C0OWNER01' && candidate.raw.includes(id)),
      15_000,
    );
    const toMe = slackMessage(id, 'C0OWNER01');
    // The user's own links (the approval's token), not an approver's seat link.
    expect(toMe.call.raw).toContain(`/approval/${created.body.id}.`);
    expect(toMe.call.raw).not.toMatch(/\.s\d+\./);
    const escalated = await settled(created.body.id);
    expect(escalated.approvers.map((seat) => seat.name)).toEqual([fay, 'me']);
    expect(escalated.dispatches.map((dispatch) => `${dispatch.provider}:${dispatch.status}`)).toEqual(['slack:sent', 'telegram:sent']);

    // The step run again (as after a worker lost its result): nobody new, the same approver and channels to ask.
    const again = await escalate(env.api.db, {
      approvalId: created.body.id,
      step: 0,
      to: ['me'],
      ownChannels: [{ position: 0, provider: 'slack', answerVia: 'signed-url' }],
    });
    expect(again).toEqual({ added: ['me'], dispatches: [], channels: [0] });
    expect((await read(created.body.id)).approvers).toHaveLength(2);

    const mine = await call(`${env.api.url}/approval/${created.body.id}/answer`, { headers: env.user.auth, json: { choice: 'approve' } });
    expect(mine.status, mine.text).toBe(200);
    expect(await read(created.body.id)).toMatchObject({ status: 'answered', choice: 'approve', decidedBy: 'me' });
  });

  test('after a reminder sent another message, a reply to the first one still votes', async () => {
    const id = unique();
    const agent = await deployChatAgent(id);
    const gus = `gus-${id}`;
    await put(`/approver/${gus}`, { slack: { userId: 'U0GUS0001' } });
    const created = await call<TeamApproval>(`${env.api.url}/approval`, {
      headers: env.user.auth,
      json: {
        question: `Order the new laptops? (${id})`,
        agent,
        options: ['approve', 'deny'],
        approvers: [gus],
        remind: { everyMs: 1_000 },
      },
    });
    expect(created.status, created.text).toBe(201);
    const toGus = () =>
      slack.calls.filter(
        (candidate) => candidate.body?.channel === 'U0GUS0001' && candidate.raw.includes(id) && !candidate.body?.thread_ts,
      );
    await until('the question and a reminder', async () => toGus().length >= 2, 15_000);
    const first = (toGus()[0]!.answer as { ts: string }).ts;
    const byGus = await slackReply('U0GUS0001', first, 'U0GUS0001', 'approve');
    expect(byGus.body).toMatchObject({ answered: true, approver: gus });
    expect(await read(created.body.id)).toMatchObject({ status: 'answered', choice: 'approve', decidedBy: gus });
  });
});
