// Approvals over the agent's user channels (webhook, Slack, Telegram, email), end to end through
// real turns against local stand-ins for each service: the question arrives with working one-click
// links (signed-url) or reply instructions (reply); a link followed by a browser, or a reply posted
// to /inbound/<provider> the way the provider would, answers it, the turn resumes and the model's
// next step sees {choice, note}. Replies that are not authentic (bad Slack signature, wrong Telegram
// secret, tampered email address, foreign webhook signature) answer nothing; a failing channel does
// not stop the next, and each dispatch is recorded.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startAgentEnv, type AgentEnv } from '../helpers/harness/agent-env.ts';
import { slackError, startFakeSlack, type FakeSlack, type SlackCall } from '../helpers/fakes/fake-slack.ts';
import { startFakeTelegram, type FakeTelegram, type TelegramCall } from '../helpers/fakes/fake-telegram.ts';
import { startSmtpSink, type SinkMail, type SmtpSink } from '../helpers/fakes/smtp-sink.ts';
import { startWebhookReceiver, type ReceivedRequest, type WebhookReceiver } from '../helpers/fakes/webhook-receiver.ts';
import { call } from '../helpers/client/request.ts';
import { settledDispatches as settledDispatchesOf, type DispatchView } from '../helpers/client/approval-dispatches.ts';
import { openLink } from '../helpers/client/browser-headers.ts';
import { REPLY_INSTRUCTIONS } from '../../activities/channels/approval-message.ts';
import { generateWebhookSecret, signWebhook, verifyWebhookSignature } from '../../lib/webhook-signature.ts';
import { slackSignature } from '../../api/inbound/slack.ts';
import { askInTurn as askInSharedTurn } from '../helpers/harness/ask-in-turn.ts';
import { freePort } from '../../dev/ports.ts';

/** The Slack channel whose fake answers invalid_auth: its calls take no ts from the fake's numbering. */
const FAILING_SLACK_CHANNEL = 'C0FAILING1';

let env: AgentEnv;
let slack: FakeSlack;
let telegram: FakeTelegram;
let sink: SmtpSink;
let hooks: WebhookReceiver;

beforeAll(async () => {
  [slack, telegram, sink, hooks] = await Promise.all([startFakeSlack(), startFakeTelegram(), startSmtpSink(), startWebhookReceiver()]);
  env = await startAgentEnv({
    OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8',
    // The SMTP sink speaks plain text on a loopback address.
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

interface ApprovalView {
  id: string;
  status: string;
  choice: string | null;
  note: string | null;
  answeredVia: string | null;
  options: string[];
  dispatches: DispatchView[];
}

interface InboundAnswer {
  ok: boolean;
  answered: boolean;
  approvalId?: string;
  reason?: string;
  choice?: string;
  note?: string | null;
}

/** A unique secret key name (secrets are per user and every test stores its own). */
const key = (name: string) => `${name}_${randomUUID().replace(/-/g, '').slice(0, 10).toUpperCase()}`;
const unique = () => randomUUID().slice(0, 8);

async function putSecret(name: string, value: string): Promise<void> {
  const response = await call(`${env.api.url}/secret/${name}`, { method: 'PUT', headers: env.user.auth, json: { value } });
  expect(response.status, response.text).toBeLessThan(300);
}

const getApproval = async (id: string) => (await call<ApprovalView>(`${env.api.url}/approval/${id}`, { headers: env.user.auth })).body;

/** Polls `list` until an item satisfies `pick`. */
async function waitFor<T>(what: string, list: () => T[], pick: (item: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = list().find(pick);
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`${what} did not arrive within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** The approval's dispatches, once none is pending (test/helpers/client/approval-dispatches.ts). */
const settledDispatches = (id: string) => settledDispatchesOf(env.api, env.user.auth, id);

interface Asked {
  sessionId: string;
  approvalId: string;
  callId: string;
}

/** A new agent with these channels and grants, a session, and a turn whose model calls ask_my_user. */
async function askInTurn(bundle: Record<string, unknown>, question: string, options: string[]): Promise<Asked> {
  const asked = await askInSharedTurn(env, { bundle, input: { question, options }, callId: `call_${unique()}`, reply: 'Noted.' });
  expect(asked.requested).toMatchObject({ question, options });
  return { sessionId: asked.sessionId, approvalId: asked.requested.approvalId, callId: asked.callId };
}

/** An approval asked through the API on behalf of a newly deployed agent (no turn, no model). */
async function askThroughApi(bundle: Record<string, unknown>, question: string, options: string[]): Promise<string> {
  const { name } = await env.deploy(bundle);
  const created = await call<{ id: string }>(`${env.api.url}/approval`, {
    headers: env.user.auth,
    json: { question, options, agent: name },
  });
  expect(created.status, created.text).toBe(201);
  return created.body.id;
}

/** Waits for the turn to complete and returns the tool message the model received for `callId`. */
async function resumedTurnToolMessage(asked: Asked): Promise<unknown> {
  await env.waitForEvents(asked.sessionId, (all) => all.some((event) => event.type === 'turn.completed'));
  for (const request of [...env.fake.requests].reverse()) {
    const message = request.body.messages.find((item) => item.role === 'tool' && item.tool_call_id === asked.callId);
    if (message) return typeof message.content === 'string' ? JSON.parse(message.content) : message.content;
  }
  throw new Error(`the model never saw a tool message for ${asked.callId}`);
}

async function answeredEvent(sessionId: string) {
  const events = await env.events(sessionId);
  return events.find((event) => event.type === 'approval.answered');
}

/** Follows a one-click link as a browser: it answers. */
async function click(url: string): Promise<void> {
  expect(url.startsWith(`${env.api.url}/approval/`), url).toBe(true);
  const response = await openLink(url);
  const text = response.text;
  // On a failure, the API's own account of it (its error log lines) says why.
  const errors = env.api.logs.filter((line) => Number(line.level) >= 50);
  expect(response.status, `${text}\n${JSON.stringify(errors.slice(-3), null, 2)}`).toBe(200);
  expect(text).toContain('is recorded');
}

const postInbound = (provider: string, body: string, headers: Record<string, string>) =>
  call<InboundAnswer>(`${env.api.url}/inbound/${provider}`, { headers: { 'content-type': 'application/json', ...headers }, body });

// --- what each fake received -----------------------------------------------------------------

const slackCallFor = (question: string) =>
  waitFor<SlackCall>(
    'the Slack message',
    () => slack.calls,
    (item) => String(item.body?.text ?? '').includes(question),
  );
const telegramCallFor = (question: string) =>
  waitFor<TelegramCall>(
    'the Telegram message',
    () => telegram.calls,
    (item) => String(item.body?.text ?? '').includes(question),
  );
const mailFor = (question: string) =>
  waitFor<SinkMail>(
    'the email',
    () => sink.mails,
    (mail) => (mail.text ?? '').includes(question),
  );
const hookFor = (approvalId: string) =>
  waitFor<ReceivedRequest>(
    'the webhook',
    () => hooks.requests,
    (request) => request.body.includes(approvalId),
  );

/**
 * The message a reply is about, once its dispatch is recorded: the provider's reference to it is stored as
 * the send returns, and a reply that comes before that (no person is that quick) is about no question we know.
 */
async function recorded<T>(message: Promise<T>, approvalId: string): Promise<T> {
  const found = await message;
  await settledDispatches(approvalId);
  return found;
}

/** The ts the fake Slack answered for this call. */
function slackTs(posted: SlackCall): string {
  return (posted.answer as { ts: string }).ts;
}

/** The message_id the fake Telegram answered for this call. */
function telegramMessageId(sent: TelegramCall): number {
  return (sent.answer as { result: { message_id: number } }).result.message_id;
}

/** What the service said in a question's thread (Slack), once `count` notes arrived. */
async function slackThreadNotes(channel: string, ts: string, count: number): Promise<string[]> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const notes = slack.calls
      .filter((item) => item.body?.channel === channel && item.body?.thread_ts === ts)
      .map((item) => String(item.body!.text));
    if (notes.length >= count || Date.now() > deadline) return notes;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

interface SlackButton {
  type: string;
  text: { text: string };
  url: string;
}

function slackButtons(posted: SlackCall): SlackButton[] {
  const blocks = posted.body!.blocks as Array<{ type: string; elements?: SlackButton[] }>;
  return blocks.filter((block) => block.type === 'actions').flatMap((block) => block.elements ?? []);
}

function slackReply(channel: string, threadTs: string, text: string) {
  return JSON.stringify({
    type: 'event_callback',
    team_id: 'T0TEST',
    event_id: `Ev${unique()}`,
    event: {
      type: 'message',
      channel,
      user: 'U0HUMAN1',
      text,
      ts: `1700009999.${String(Date.now() % 1_000_000).padStart(6, '0')}`,
      thread_ts: threadTs,
    },
  });
}

function slackHeaders(signingSecret: string, body: string, timestamp = String(Math.floor(Date.now() / 1000))) {
  return { 'x-slack-request-timestamp': timestamp, 'x-slack-signature': slackSignature(signingSecret, timestamp, body) };
}

function telegramReply(chatId: number, repliedTo: number, text: string) {
  return JSON.stringify({
    update_id: Math.floor(Math.random() * 1e9),
    message: {
      message_id: 9000,
      date: Math.floor(Date.now() / 1000),
      chat: { id: chatId, type: 'private' },
      from: { id: chatId, is_bot: false, first_name: 'Ann' },
      text,
      reply_to_message: { message_id: repliedTo, date: 1_700_000_000, chat: { id: chatId, type: 'private' }, text: 'Question…' },
    },
  });
}

// --- channels ----------------------------------------------------------------------------------

function slackChannel(answerVia: 'signed-url' | 'reply', channel: string, tokenKey: string, signingKey?: string) {
  return {
    provider: 'slack',
    answerVia,
    config: {
      token: `{{secrets.${tokenKey}}}`,
      channel,
      ...(signingKey ? { signingSecret: `{{secrets.${signingKey}}}` } : {}),
    },
  };
}

function telegramChannel(answerVia: 'signed-url' | 'reply', chatId: number, tokenKey: string, secretKey?: string) {
  return {
    provider: 'telegram',
    answerVia,
    config: { botToken: `{{secrets.${tokenKey}}}`, chatId, ...(secretKey ? { secretToken: `{{secrets.${secretKey}}}` } : {}) },
  };
}

function emailChannel(answerVia: 'signed-url' | 'reply', to: string, passKey: string) {
  return {
    provider: 'email',
    answerVia,
    config: {
      host: sink.host,
      port: sink.port,
      user: 'bot@agents.test',
      pass: `{{secrets.${passKey}}}`,
      from: 'Agent <bot@agents.test>',
      to,
      ...(answerVia === 'reply' ? { replyAddress: 'approve@in.agents.test' } : {}),
    },
  };
}

describe('answerVia signed-url: the question arrives with one-click links that answer it', () => {
  test('webhook: the signed JSON carries links; a click resumes the turn', async () => {
    const secretKey = key('HOOK_SECRET');
    const secret = generateWebhookSecret();
    await putSecret(secretKey, secret);
    const question = `Rotate the database password now? (${unique()})`;
    const asked = await askInTurn(
      {
        secretGrants: [secretKey],
        userChannels: [{ provider: 'webhook', config: { url: hooks.url, secret: `{{secrets.${secretKey}}}` } }],
      },
      question,
      ['rotate', 'wait'],
    );
    const received = await hookFor(asked.approvalId);
    verifyWebhookSignature({ secret, headers: received.headers, body: received.body });
    const body = JSON.parse(received.body) as {
      type: string;
      approval: { id: string; question: string; options: string[]; sessionId: string };
      links: { page: string; options: Array<{ option: string; url: string }> };
      reply?: unknown;
    };
    expect(body).toMatchObject({
      type: 'approval.requested',
      approval: { id: asked.approvalId, question, options: ['rotate', 'wait'], sessionId: asked.sessionId },
    });
    expect(body.reply).toBeUndefined();
    expect(body.links.options.map((link) => link.option)).toEqual(['rotate', 'wait']);

    await click(body.links.options[1]!.url);
    expect(await resumedTurnToolMessage(asked)).toEqual({ choice: 'wait', note: null });
    expect(await getApproval(asked.approvalId)).toMatchObject({ status: 'answered', choice: 'wait', note: null, answeredVia: 'link' });
    expect(await answeredEvent(asked.sessionId)).toMatchObject({ choice: 'wait', via: 'link' });
  });

  test('slack: each option is a button whose url answers; the bot token from the secret is used', async () => {
    const tokenKey = key('SLACK_TOKEN');
    const token = `xoxb-${unique()}`;
    await putSecret(tokenKey, token);
    const question = `Merge the release branch into main? (${unique()})`;
    const asked = await askInTurn(
      { secretGrants: [tokenKey], userChannels: [slackChannel('signed-url', 'C0SIGNED01', tokenKey)] },
      question,
      ['merge', 'hold'],
    );
    const posted = await slackCallFor(question);
    expect(posted.headers.authorization).toBe(`Bearer ${token}`);
    expect(posted.body).toMatchObject({ channel: 'C0SIGNED01', unfurl_links: false, unfurl_media: false });
    const buttons = slackButtons(posted);
    expect(buttons.map((button) => button.text.text)).toEqual(['merge', 'hold']);

    await click(buttons[0]!.url);
    expect(await resumedTurnToolMessage(asked)).toEqual({ choice: 'merge', note: null });
    expect(await getApproval(asked.approvalId)).toMatchObject({ status: 'answered', choice: 'merge', answeredVia: 'link' });
  });

  test('telegram: an inline keyboard of URL buttons; one answers', async () => {
    const tokenKey = key('TG_TOKEN');
    const botToken = `123456:${unique()}`;
    await putSecret(tokenKey, botToken);
    const question = `Send the invoice reminders today? (${unique()})`;
    const asked = await askInTurn({ secretGrants: [tokenKey], userChannels: [telegramChannel('signed-url', 310001, tokenKey)] }, question, [
      'send',
      'skip',
    ]);
    const sent = await telegramCallFor(question);
    expect(sent.token).toBe(botToken);
    expect(sent.body).toMatchObject({ chat_id: 310001, link_preview_options: { is_disabled: true } });
    const keyboard = (sent.body!.reply_markup as { inline_keyboard: Array<Array<{ text: string; url: string }>> }).inline_keyboard;
    expect(keyboard.map((row) => row.map((button) => button.text))).toEqual([['send'], ['skip']]);

    await click(keyboard[1]![0]!.url);
    expect(await resumedTurnToolMessage(asked)).toEqual({ choice: 'skip', note: null });
    expect(await getApproval(asked.approvalId)).toMatchObject({ status: 'answered', choice: 'skip', answeredVia: 'link' });
    // The chat hears what was decided, as a reply to the question.
    const messageId = telegramMessageId(sent);
    const deadline = Date.now() + 15_000;
    let note: TelegramCall | undefined;
    while (!note && Date.now() < deadline) {
      note = telegram.calls.find((item) => (item.body?.reply_parameters as { message_id?: number } | undefined)?.message_id === messageId);
      if (!note) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(note?.body).toMatchObject({ chat_id: 310001, text: 'Answered: "skip" (via link).' });
  });

  test('email: the text and HTML bodies carry the links; one answers', async () => {
    const passKey = key('SMTP_PASS');
    const pass = `pw-${unique()}`;
    await putSecret(passKey, pass);
    const to = `ann-${unique()}@example.test`;
    const question = `Archive the 2019 projects folder? (${unique()})`;
    const asked = await askInTurn({ secretGrants: [passKey], userChannels: [emailChannel('signed-url', to, passKey)] }, question, [
      'archive',
      'keep',
    ]);
    const mail = await mailFor(question);
    expect(mail.envelope.to).toEqual([to]);
    expect(mail.login).toEqual({ username: 'bot@agents.test', password: pass });
    expect(mail.replyTo).toBeUndefined();
    const textLink = /^1\. archive: (\S+)$/m.exec(mail.text ?? '')?.[1];
    const htmlLinks = [...(mail.html ?? '').matchAll(/<a href="([^"]+)"[^>]*>([^<]+)<\/a>/g)].map((match) => ({
      url: match[1]!,
      label: match[2]!,
    }));
    expect(htmlLinks.map((link) => link.label)).toEqual(['archive', 'keep', 'All options on one page']);
    expect(textLink).toBe(htmlLinks[0]!.url);

    await click(textLink!);
    expect(await resumedTurnToolMessage(asked)).toEqual({ choice: 'archive', note: null });
    expect(await getApproval(asked.approvalId)).toMatchObject({ status: 'answered', choice: 'archive', answeredVia: 'link' });
  });
});

describe('answerVia reply: a reply posted to /inbound/<provider> answers', () => {
  test('webhook: the body says where to reply; a signed {approvalId, choice, note} answers', async () => {
    const secretKey = key('HOOK_SECRET');
    const secret = generateWebhookSecret();
    await putSecret(secretKey, secret);
    const question = `Refund order 8812 (39 EUR)? (${unique()})`;
    const asked = await askInTurn(
      {
        secretGrants: [secretKey],
        userChannels: [{ provider: 'webhook', answerVia: 'reply', config: { url: hooks.url, secret: `{{secrets.${secretKey}}}` } }],
      },
      question,
      ['refund', 'decline'],
    );
    const received = await hookFor(asked.approvalId);
    verifyWebhookSignature({ secret, headers: received.headers, body: received.body });
    const body = JSON.parse(received.body) as { reply: { url: string; approvalId: string } };
    expect(body.reply).toEqual({ url: `${env.api.url}/inbound/webhook`, approvalId: asked.approvalId });

    const now = Math.floor(Date.now() / 1000);
    const reply = JSON.stringify({ approvalId: asked.approvalId, choice: 'Decline', note: 'customer already got a voucher' });
    // Signed with another secret: not authentic, nothing recorded.
    const forged = await postInbound('webhook', reply, signWebhook(generateWebhookSecret(), `msg_${unique()}`, now, reply));
    expect(forged.status).toBe(401);
    expect((await getApproval(asked.approvalId)).status).toBe('unanswered');

    const answered = await postInbound('webhook', reply, signWebhook(secret, `msg_${unique()}`, now, reply));
    expect(answered.status, answered.text).toBe(200);
    expect(answered.body).toMatchObject({ answered: true, approvalId: asked.approvalId });
    expect(await resumedTurnToolMessage(asked)).toEqual({ choice: 'decline', note: 'customer already got a voucher' });
    expect(await getApproval(asked.approvalId)).toMatchObject({
      status: 'answered',
      choice: 'decline',
      note: 'customer already got a voucher',
      answeredVia: 'webhook',
    });
    expect(await answeredEvent(asked.sessionId)).toMatchObject({ choice: 'decline', via: 'webhook' });
  });

  test('slack: instructions instead of buttons; a signed thread reply "2 …" picks the second option', async () => {
    const tokenKey = key('SLACK_TOKEN');
    const signingKey = key('SLACK_SIGNING');
    const signingSecret = `signing-${unique()}`;
    await putSecret(tokenKey, `xoxb-${unique()}`);
    await putSecret(signingKey, signingSecret);
    const question = `Publish the changelog for v3.2? (${unique()})`;
    const asked = await askInTurn(
      { secretGrants: [tokenKey, signingKey], userChannels: [slackChannel('reply', 'C0REPLY001', tokenKey, signingKey)] },
      question,
      ['publish', 'postpone'],
    );
    const posted = await recorded(slackCallFor(question), asked.approvalId);
    expect(slackButtons(posted)).toEqual([]);
    expect(JSON.stringify(posted.body!.blocks)).toContain(REPLY_INSTRUCTIONS);
    expect(String(posted.body!.text)).toContain(REPLY_INSTRUCTIONS);

    const body = slackReply('C0REPLY001', slackTs(posted), '2 after the design review');
    const answered = await postInbound('slack', body, slackHeaders(signingSecret, body));
    expect(answered.status, answered.text).toBe(200);
    expect(answered.body).toMatchObject({ ok: true, answered: true, approvalId: asked.approvalId });
    expect(await resumedTurnToolMessage(asked)).toEqual({ choice: 'postpone', note: 'after the design review' });
    expect(await getApproval(asked.approvalId)).toMatchObject({
      status: 'answered',
      choice: 'postpone',
      note: 'after the design review',
      answeredVia: 'slack',
    });
    expect(await answeredEvent(asked.sessionId)).toMatchObject({ choice: 'postpone', note: 'after the design review', via: 'slack' });
  });

  test('telegram: a forced reply; a reply to the message with the secret header answers', async () => {
    const tokenKey = key('TG_TOKEN');
    const secretKey = key('TG_SECRET');
    const secretToken = `tg_${unique()}`;
    await putSecret(tokenKey, `654321:${unique()}`);
    await putSecret(secretKey, secretToken);
    const question = `Restart the staging cluster? (${unique()})`;
    const asked = await askInTurn(
      { secretGrants: [tokenKey, secretKey], userChannels: [telegramChannel('reply', 320002, tokenKey, secretKey)] },
      question,
      ['restart', 'leave it'],
    );
    const sent = await recorded(telegramCallFor(question), asked.approvalId);
    expect(sent.body!.reply_markup).toEqual({ force_reply: true, input_field_placeholder: 'Option name or number, then a note' });
    expect(String(sent.body!.text)).toContain(REPLY_INSTRUCTIONS);

    const answered = await postInbound('telegram', telegramReply(320002, telegramMessageId(sent), 'Leave it: QA is testing there'), {
      'x-telegram-bot-api-secret-token': secretToken,
    });
    expect(answered.status, answered.text).toBe(200);
    expect(answered.body).toMatchObject({ ok: true, answered: true, approvalId: asked.approvalId });
    expect(await resumedTurnToolMessage(asked)).toEqual({ choice: 'leave it', note: 'QA is testing there' });
    expect(await getApproval(asked.approvalId)).toMatchObject({ status: 'answered', choice: 'leave it', answeredVia: 'telegram' });
  });

  test('email: Reply-To is a signed address; a reply to it, quoting the question, answers with a note', async () => {
    const passKey = key('SMTP_PASS');
    await putSecret(passKey, `pw-${unique()}`);
    const question = `Keep the nightly backups of the old CRM? (${unique()})`;
    const asked = await askInTurn(
      { secretGrants: [passKey], userChannels: [emailChannel('reply', `ann-${unique()}@example.test`, passKey)] },
      question,
      ['keep', 'delete'],
    );
    const mail = await mailFor(question);
    expect(mail.text).toContain(REPLY_INSTRUCTIONS);
    expect(mail.html ?? '').not.toContain('/answer?choice=');
    const replyTo = mail.replyTo!;
    expect(replyTo).toMatch(/^approve\+apr_[0-9a-z]+\.[0-9a-z]+@in\.agents\.test$/i);
    expect(replyTo.toLowerCase()).toContain(asked.approvalId.toLowerCase());

    const answered = await postInbound(
      'email',
      JSON.stringify({
        recipient: replyTo,
        sender: 'Ann <ann@example.test>',
        subject: `Re: ${mail.subject}`,
        'body-plain': `keep - not today\n\nOn Mon, 3 Mar 2025 at 10:00, Agent <bot@agents.test> wrote:\n> ${question}\n> 1. keep\n> 2. delete\n`,
      }),
      {},
    );
    expect(answered.status, answered.text).toBe(200);
    expect(answered.body).toMatchObject({ answered: true, approvalId: asked.approvalId });
    expect(await resumedTurnToolMessage(asked)).toEqual({ choice: 'keep', note: 'not today' });
    expect(await getApproval(asked.approvalId)).toMatchObject({
      status: 'answered',
      choice: 'keep',
      note: 'not today',
      answeredVia: 'email',
    });
  });
});

describe('replies that answer nothing', () => {
  test('slack: a bad signature or a stale timestamp is 401; a reply naming no option is 200 answered: false', async () => {
    const tokenKey = key('SLACK_TOKEN');
    const signingKey = key('SLACK_SIGNING');
    const signingSecret = `signing-${unique()}`;
    await putSecret(tokenKey, `xoxb-${unique()}`);
    await putSecret(signingKey, signingSecret);
    const question = `Delete the stale feature flags? (${unique()})`;
    const approvalId = await askThroughApi(
      { secretGrants: [tokenKey, signingKey], userChannels: [slackChannel('reply', 'C0NEGATIVE', tokenKey, signingKey)] },
      question,
      ['delete', 'keep'],
    );
    const posted = await recorded(slackCallFor(question), approvalId);
    const ts = slackTs(posted);

    const body = slackReply('C0NEGATIVE', ts, 'delete');
    const badSignature = await postInbound('slack', body, slackHeaders(`${signingSecret}x`, body));
    expect(badSignature.status).toBe(401);
    const stale = String(Math.floor(Date.now() / 1000) - 600);
    const staleReply = await postInbound('slack', body, slackHeaders(signingSecret, body, stale));
    expect(staleReply.status).toBe(401);
    expect(await getApproval(approvalId)).toMatchObject({ status: 'unanswered', choice: null });

    const chatty = slackReply('C0NEGATIVE', ts, 'let me think about it');
    const noOption = await postInbound('slack', chatty, slackHeaders(signingSecret, chatty));
    expect(noOption.status).toBe(200);
    expect(noOption.body).toEqual({
      ok: true,
      answered: false,
      approvalId,
      reason: 'the reply names none of the options: delete, keep',
    });
    expect(await getApproval(approvalId)).toMatchObject({ status: 'unanswered', choice: null });

    // Whoever replied is told in the thread that nothing was recorded, and how to answer.
    expect(await slackThreadNotes('C0NEGATIVE', ts, 1)).toEqual([
      'Your reply did not name an option, so nothing was recorded. Reply with one of: 1. delete, 2. keep ' +
        '(its name or number; anything after it on the same line is kept as a note).',
    ]);

    // Still answerable by an authentic reply; the thread then says what was recorded.
    const good = slackReply('C0NEGATIVE', ts, 'keep');
    expect((await postInbound('slack', good, slackHeaders(signingSecret, good))).body).toMatchObject({ answered: true });
    expect(await getApproval(approvalId)).toMatchObject({ status: 'answered', choice: 'keep', note: null, answeredVia: 'slack' });
    expect((await slackThreadNotes('C0NEGATIVE', ts, 2))[1]).toBe('Answered: "keep" (via slack).');

    // A later reply is told the question is settled.
    const late = slackReply('C0NEGATIVE', ts, 'delete');
    expect((await postInbound('slack', late, slackHeaders(signingSecret, late))).body).toMatchObject({ answered: false });
    expect((await slackThreadNotes('C0NEGATIVE', ts, 3))[2]).toBe('This approval was already answered ("keep")');
  });

  test('telegram: a wrong or missing secret header is 401 and answers nothing', async () => {
    const tokenKey = key('TG_TOKEN');
    const secretKey = key('TG_SECRET');
    const secretToken = `tg_${unique()}`;
    await putSecret(tokenKey, `777777:${unique()}`);
    await putSecret(secretKey, secretToken);
    const question = `Pause the marketing emails? (${unique()})`;
    const approvalId = await askThroughApi(
      { secretGrants: [tokenKey, secretKey], userChannels: [telegramChannel('reply', 330003, tokenKey, secretKey)] },
      question,
      ['pause', 'continue'],
    );
    const sent = await recorded(telegramCallFor(question), approvalId);
    const reply = telegramReply(330003, telegramMessageId(sent), '1');
    expect((await postInbound('telegram', reply, { 'x-telegram-bot-api-secret-token': `${secretToken}x` })).status).toBe(401);
    expect((await postInbound('telegram', reply, {})).status).toBe(401);
    expect(await getApproval(approvalId)).toMatchObject({ status: 'unanswered', choice: null });

    const answered = await postInbound('telegram', reply, { 'x-telegram-bot-api-secret-token': secretToken });
    expect(answered.body).toMatchObject({ answered: true, approvalId });
    expect(await getApproval(approvalId)).toMatchObject({ status: 'answered', choice: 'pause', answeredVia: 'telegram' });
  });

  test('email: a reply to a tampered address is 401 and writes nothing', async () => {
    const passKey = key('SMTP_PASS');
    await putSecret(passKey, `pw-${unique()}`);
    const question = `Renew the TLS certificate early? (${unique()})`;
    const approvalId = await askThroughApi(
      { secretGrants: [passKey], userChannels: [emailChannel('reply', `bob-${unique()}@example.test`, passKey)] },
      question,
      ['renew', 'wait'],
    );
    const mail = await mailFor(question);
    const replyTo = mail.replyTo!;
    const [local, domain] = replyTo.split('@') as [string, string];
    const flipped = local.slice(0, -1) + (local.endsWith('a') ? 'b' : 'a');
    const tampered = await postInbound(
      'email',
      JSON.stringify({ recipient: `${flipped}@${domain}`, sender: 'mallory@example.test', 'body-plain': 'renew' }),
      {},
    );
    expect(tampered.status).toBe(401);
    expect(await getApproval(approvalId)).toMatchObject({ status: 'unanswered', choice: null, answeredVia: null });
  });
});

describe('dispatch', () => {
  test('a channel failing for good does not stop the next; each dispatch is recorded', async () => {
    const slackKey = key('SLACK_TOKEN');
    const telegramKey = key('TG_TOKEN');
    await putSecret(slackKey, 'xoxb-revoked');
    await putSecret(telegramKey, `888888:${unique()}`);
    const question = `Upgrade the payment SDK? (${unique()})`;
    slack.enqueue(slackError('invalid_auth'));
    const asked = await askInTurn(
      {
        secretGrants: [slackKey, telegramKey],
        userChannels: [slackChannel('signed-url', FAILING_SLACK_CHANNEL, slackKey), telegramChannel('signed-url', 340004, telegramKey)],
      },
      question,
      ['upgrade', 'later'],
    );
    const sent = await telegramCallFor(question);
    expect(sent.body).toMatchObject({ chat_id: 340004 });

    const dispatches = await settledDispatches(asked.approvalId);
    expect(dispatches).toEqual([
      {
        position: 0,
        provider: 'slack',
        answerVia: 'signed-url',
        status: 'failed',
        attempts: 1,
        error: expect.stringContaining('invalid_auth'),
        updatedAt: expect.any(String),
      },
      {
        position: 1,
        provider: 'telegram',
        answerVia: 'signed-url',
        status: 'sent',
        attempts: 1,
        error: null,
        updatedAt: expect.any(String),
      },
    ]);
    // Permanent: not retried.
    expect(slack.calls.filter((item) => item.body?.channel === FAILING_SLACK_CHANNEL)).toHaveLength(1);

    // The surviving channel's link still answers and resumes the turn.
    const keyboard = (sent.body!.reply_markup as { inline_keyboard: Array<Array<{ url: string }>> }).inline_keyboard;
    await click(keyboard[0]![0]!.url);
    expect(await resumedTurnToolMessage(asked)).toEqual({ choice: 'upgrade', note: null });
  });

  test('a receiver that refuses the connection: the dispatch records the socket error, naming no address or port', async () => {
    const port = await freePort();
    const approvalId = await askThroughApi(
      { userChannels: [{ provider: 'webhook', config: { url: `http://127.0.0.1:${port}/hook` } }] },
      `Restart the queue? (${unique()})`,
      ['yes', 'no'],
    );
    const [dispatch] = await settledDispatches(approvalId);
    expect(dispatch).toMatchObject({ provider: 'webhook', status: 'failed', attempts: 2 });
    expect(dispatch!.error).toBe('Error: connect ECONNREFUSED');
    // What a `read` key reads of it.
    const reader = await call<{ key: string }>(`${env.api.url}/key`, { headers: env.user.auth, json: { scopes: ['read'] } });
    const seen = await call(`${env.api.url}/approval/${approvalId}`, { headers: { authorization: `Bearer ${reader.body.key}` } });
    expect(seen.status).toBe(200);
    expect(seen.text).toContain('ECONNREFUSED');
    expect(seen.text).not.toMatch(/127\.0\.0\.1|\b\d{1,3}(\.\d{1,3}){3}\b/);
    expect(seen.text).not.toContain(`:${port}`);
  });
});
