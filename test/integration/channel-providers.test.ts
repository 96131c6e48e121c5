// Each channel provider's send() against a local stand-in for its service (a webhook receiver, fake
// Slack and Telegram APIs, an SMTP sink), through the real outbound guard with loopback allowed:
// what arrives, the externalRef replies will be matched by, which failures are permanent and which
// are retried, that the Telegram bot token never reaches an error, and that the guard applies to
// SMTP as it does to HTTP.
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { channelProviders } from '../../activities/channels/index.ts';
import { ChannelPermanentError, type ApprovalMessage, type ChannelContext } from '../../activities/channels/types.ts';
import { approvalHtml, approvalText, REPLY_INSTRUCTIONS } from '../../activities/channels/approval-message.ts';
import { approvalLinks } from '../../lib/approval-token.ts';
import { createOutboundClient } from '../../lib/outbound.ts';
import { generateWebhookSecret, verifyWebhook } from '../../lib/webhook-signature.ts';
import { slackError, startFakeSlack, type FakeSlack } from '../helpers/fakes/fake-slack.ts';
import { startFakeTelegram, telegramError, type FakeTelegram } from '../helpers/fakes/fake-telegram.ts';
import { startSmtpSink, type SmtpSink } from '../helpers/fakes/smtp-sink.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/fakes/webhook-receiver.ts';

const APPROVAL_ID = 'apr_0123456789abcdefghjkmnpqrs';
const TOKEN = `${APPROVAL_ID}.abcdefghjkmnpqrstvwx`;
const BASE = 'https://agents.example.com';
const PAGE = `${BASE}/approval/${TOKEN}/answer`;

function message(overrides: Partial<ApprovalMessage> = {}): ApprovalMessage {
  const options = overrides.options ?? ['yes', 'no'];
  return {
    approvalId: APPROVAL_ID,
    question: 'Deploy build 42 to production?',
    options,
    expiresAt: '2025-03-04T05:06:07.890Z',
    agentName: 'release-bot',
    sessionId: 'ses_0123456789abcdefghjkmnpqrs',
    answerVia: 'signed-url',
    links: approvalLinks(BASE, TOKEN, options),
    token: TOKEN,
    publicBaseUrl: BASE,
    ...overrides,
  };
}

let receiver: WebhookReceiver;
let slack: FakeSlack;
let telegram: FakeTelegram;
let sink: SmtpSink;
let context: ChannelContext;
/** The same settings behind a guard that allows no private address. */
let guarded: ChannelContext;
/** A loopback port nothing listens on. */
let closedPort: number;

beforeAll(async () => {
  [receiver, slack, telegram, sink] = await Promise.all([startWebhookReceiver(), startFakeSlack(), startFakeTelegram(), startSmtpSink()]);
  // The sink speaks plain text on a loopback address, which only SMTP_PLAINTEXT_LOOPBACK allows.
  const settings = {
    slackApiBaseUrl: slack.baseUrl,
    telegramApiBaseUrl: telegram.baseUrl,
    requestTimeoutMs: 3_000,
    smtpPlaintextLoopback: true,
  };
  context = { outbound: createOutboundClient({ allowCidrs: ['127.0.0.0/8'] }), settings };
  guarded = { outbound: createOutboundClient({ allowCidrs: [] }), settings };
  const probe = createServer().listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => probe.once('listening', () => resolve()));
  closedPort = (probe.address() as AddressInfo).port;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
});

afterAll(async () => {
  await Promise.all([receiver?.close(), slack?.close(), telegram?.close(), sink?.close()]);
});

/** The error a send fails with (the test fails if it succeeds). */
async function failure(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('the send succeeded');
}

describe('webhook', () => {
  const send = (config: Record<string, string>, overrides: Partial<ApprovalMessage> = {}, ctx = context) =>
    channelProviders.webhook.send(config, message(overrides), ctx);

  beforeEach(() => {
    receiver.requests.length = 0;
  });

  test('posts the approval and its links, signed with the channel secret', async () => {
    const secret = generateWebhookSecret();
    expect(await send({ url: receiver.url, secret })).toEqual({ externalRef: null });
    const [request] = await receiver.waitForRequests(1);
    expect(request!.method).toBe('POST');
    expect(request!.headers['content-type']).toBe('application/json');
    expect(JSON.parse(request!.body)).toEqual({
      type: 'approval.requested',
      approval: {
        id: APPROVAL_ID,
        question: 'Deploy build 42 to production?',
        options: ['yes', 'no'],
        expiresAt: '2025-03-04T05:06:07.890Z',
        agentName: 'release-bot',
        sessionId: 'ses_0123456789abcdefghjkmnpqrs',
      },
      links: {
        page: PAGE,
        options: [
          { option: 'yes', url: `${PAGE}?choice=yes` },
          { option: 'no', url: `${PAGE}?choice=no` },
        ],
      },
    });
    const headers = request!.headers as Record<string, string>;
    expect(headers['webhook-id']).toBe(APPROVAL_ID);
    // Verified the way a receiver using the reference library would.
    expect(new Webhook(secret).verify(request!.body, headers)).toMatchObject({ type: 'approval.requested' });
    expect(() => verifyWebhook({ body: request!.body, headers, secret: generateWebhookSecret() })).toThrow(/No signature matches/);
  });

  test('answered by reply: says where to post the answer', async () => {
    await send({ url: receiver.url, secret: generateWebhookSecret() }, { answerVia: 'reply', agentName: undefined, sessionId: undefined });
    const body = JSON.parse((await receiver.waitForRequests(1))[0]!.body) as Record<string, unknown>;
    expect(body.reply).toEqual({ url: `${BASE}/inbound/webhook`, approvalId: APPROVAL_ID });
    expect(body.approval).toEqual({
      id: APPROVAL_ID,
      question: 'Deploy build 42 to production?',
      options: ['yes', 'no'],
      expiresAt: '2025-03-04T05:06:07.890Z',
    });
  });

  test('without a secret nothing is signed; reply mode refuses to go without one', async () => {
    await send({ url: receiver.url });
    const [request] = await receiver.waitForRequests(1);
    expect(request!.headers['webhook-signature']).toBeUndefined();
    expect(JSON.parse(request!.body)).not.toHaveProperty('reply');
    const error = await failure(send({ url: receiver.url }, { answerVia: 'reply' }));
    expect(error).toBeInstanceOf(ChannelPermanentError);
    expect(receiver.requests).toHaveLength(1);
  });

  test.each([
    [400, true],
    [404, true],
    [410, true],
    [408, false],
    [429, false],
    [500, false],
    [503, false],
  ])('answered %i: permanent %s', async (status, permanent) => {
    receiver.enqueue(status);
    const error = await failure(send({ url: receiver.url }));
    expect(error.message).toBe(`The webhook receiver answered ${status}`);
    expect(error instanceof ChannelPermanentError).toBe(permanent);
  });

  test('a private address the guard refuses is permanent', async () => {
    const error = await failure(send({ url: receiver.url }, {}, guarded));
    expect(error).toBeInstanceOf(ChannelPermanentError);
    expect(error.message).toMatch(/^The webhook channel's url is refused: Refused: the receiver's address is loopback, not public/);
    expect(error.message).not.toMatch(/127\.0\.0\.1/);
    expect(receiver.requests).toHaveLength(0);
  });

  test('an unreachable receiver is retried', async () => {
    const error = await failure(send({ url: `http://127.0.0.1:${closedPort}/hook` }));
    expect(error).not.toBeInstanceOf(ChannelPermanentError);
    expect((error as NodeJS.ErrnoException).code).toBe('ECONNREFUSED');
  });
});

describe('slack', () => {
  const config = { token: 'xoxb-test-token', channel: 'C123' };
  const send = (overrides: Partial<ApprovalMessage> = {}, ctx = context, cfg: Record<string, string> = config) =>
    channelProviders.slack.send(cfg, message(overrides), ctx);
  const blocksOf = (index: number) => slack.calls[index]!.body!.blocks as Array<Record<string, unknown>>;

  beforeEach(() => {
    slack.calls.length = 0;
  });

  test('posts the question with one URL button per option; the ref is channel:ts', async () => {
    const first = await send();
    const second = await send();
    expect(first.externalRef).toMatch(/^C123:1700000000\.\d{6}$/);
    const [a, b] = [first.externalRef!, second.externalRef!].map((ref) => Number(ref.split(':')[1]));
    expect(b! - a!).toBeCloseTo(0.0001, 6);

    const [call] = await slack.waitForCalls(2);
    expect(call!.path).toBe('/api/chat.postMessage');
    expect(call!.headers.authorization).toBe('Bearer xoxb-test-token');
    expect(call!.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(call!.body!.channel).toBe('C123');
    expect(call!.body!.text).toBe(approvalText(message()));
    expect(blocksOf(0)).toEqual([
      { type: 'section', text: { type: 'mrkdwn', text: '*Question from release-bot:*' } },
      { type: 'section', text: { type: 'mrkdwn', text: 'Deploy build 42 to production?' } },
      { type: 'section', text: { type: 'mrkdwn', text: '1. yes\n2. no' } },
      {
        type: 'actions',
        elements: [
          {
            type: 'button',
            action_id: 'approval_option_1',
            text: { type: 'plain_text', text: 'yes', emoji: false },
            url: `${PAGE}?choice=yes`,
          },
          {
            type: 'button',
            action_id: 'approval_option_2',
            text: { type: 'plain_text', text: 'no', emoji: false },
            url: `${PAGE}?choice=no`,
          },
        ],
      },
      { type: 'context', elements: [{ type: 'mrkdwn', text: 'Expires 2025-03-04 05:06 UTC.' }] },
    ]);
  });

  test('answered by reply: the instructions instead of buttons', async () => {
    await send({ answerVia: 'reply' });
    const blocks = blocksOf(0);
    expect(blocks.map((block) => block.type)).toEqual(['section', 'section', 'section', 'context', 'context']);
    expect(blocks[3]).toEqual({ type: 'context', elements: [{ type: 'mrkdwn', text: REPLY_INSTRUCTIONS }] });
    expect(JSON.stringify(slack.calls[0]!.body)).not.toContain(PAGE);
  });

  test("markup in the question is escaped with Slack's rules, and long text is split into sections", async () => {
    await send({ question: 'Ping <@U1> & <!channel>? <https://x|y>' });
    expect(blocksOf(0)[1]).toEqual({
      type: 'section',
      text: { type: 'mrkdwn', text: 'Ping &lt;@U1&gt; &amp; &lt;!channel&gt;? &lt;https://x|y&gt;' },
    });
    expect(slack.calls[0]!.body!.text).toContain('Ping &lt;@U1&gt; &amp; &lt;!channel&gt;?');

    await send({ question: `${'&'.repeat(700)}${'q'.repeat(3300)}` });
    const sections = blocksOf(1).slice(1, -3) as Array<{ text: { text: string } }>;
    expect(sections.map((section) => section.text.text.length)).toEqual([3000, 3000, 800]);
    expect(sections.map((section) => section.text.text).join('')).toBe(`${'&amp;'.repeat(700)}${'q'.repeat(3300)}`);
  });

  test.each([
    'invalid_auth',
    'not_authed',
    'channel_not_found',
    'account_inactive',
    'token_revoked',
    'not_in_channel',
    'missing_scope',
    'msg_too_long',
  ])('{ok: false, error: %s} is permanent', async (code) => {
    slack.enqueue(slackError(code));
    const error = await failure(send());
    expect(error).toBeInstanceOf(ChannelPermanentError);
    expect(error.message).toBe(`Slack refused chat.postMessage: ${code}`);
  });

  test.each([
    [slackError('ratelimited'), 'Slack refused chat.postMessage for now: ratelimited'],
    [slackError('internal_error'), 'Slack refused chat.postMessage for now: internal_error'],
    [slackError('ratelimited', 429), 'Slack answered 429: ratelimited'],
    [{ status: 500, body: 'oops' }, 'Slack answered 500'],
    [{ status: 503, body: { ok: false, error: 'service_unavailable' } }, 'Slack answered 503: service_unavailable'],
  ])('%j is retried', async (answer, text) => {
    slack.enqueue(answer);
    const error = await failure(send());
    expect(error).not.toBeInstanceOf(ChannelPermanentError);
    expect(error.message).toBe(text);
  });

  test('a missing token or channel is permanent, before any call', async () => {
    const configs: Array<Record<string, string>> = [{ channel: 'C1' }, { token: 'xoxb-1', channel: '' }];
    for (const cfg of configs) {
      expect(await failure(send({}, context, cfg))).toBeInstanceOf(ChannelPermanentError);
    }
    expect(slack.calls).toHaveLength(0);
  });

  test('the guard refuses a private API address permanently', async () => {
    expect(await failure(send({}, guarded))).toBeInstanceOf(ChannelPermanentError);
    expect(slack.calls).toHaveLength(0);
  });
});

describe('telegram', () => {
  const botToken = '123456:AAH-secret_bot_token';
  const send = (
    overrides: Partial<ApprovalMessage> = {},
    ctx = context,
    config: Record<string, string | number> = { botToken, chatId: 4242 },
  ) => channelProviders.telegram.send(config, message(overrides), ctx);

  beforeEach(() => {
    telegram.calls.length = 0;
  });

  test('sends the text with one URL button per row; the ref is chat id:message_id', async () => {
    const first = await send();
    const second = await send({}, context, { botToken, chatId: '@release_channel' });
    const [call, channelCall] = await telegram.waitForCalls(2);
    expect(first.externalRef).toBe('4242:501');
    expect(second.externalRef).toBe('-1001234567890:502');
    expect(call!.token).toBe(botToken);
    expect(call!.body).toEqual({
      chat_id: 4242,
      text: approvalText(message(), { linksAs: 'buttons' }),
      reply_markup: {
        inline_keyboard: [[{ text: 'yes', url: `${PAGE}?choice=yes` }], [{ text: 'no', url: `${PAGE}?choice=no` }]],
      },
      link_preview_options: { is_disabled: true },
    });
    expect(channelCall!.body!.chat_id).toBe('@release_channel');
  });

  test('answered by reply: a forced reply and the instructions', async () => {
    await send({ answerVia: 'reply' });
    const body = (await telegram.waitForCalls(1))[0]!.body!;
    expect(body.reply_markup).toEqual({ force_reply: true, input_field_placeholder: 'Option name or number, then a note' });
    expect(body.text).toBe(approvalText(message({ answerVia: 'reply' })));
    expect(String(body.text).endsWith(REPLY_INSTRUCTIONS)).toBe(true);
  });

  test('a question longer than Telegram allows is cut to 4096 characters, pointing to the page', async () => {
    await send({ question: 'q'.repeat(4000), options: Array.from({ length: 10 }, (_, index) => `option ${'x'.repeat(80)} ${index}`) });
    const text = String((await telegram.waitForCalls(1))[0]!.body!.text);
    expect(text.length).toBeLessThanOrEqual(4096);
    expect(text).toContain(`q… (the full question: ${PAGE})`);
  });

  test.each([
    [telegramError(400, 'Bad Request: chat not found'), true],
    [telegramError(401, 'Unauthorized'), true],
    [telegramError(403, 'Forbidden: bot was blocked by the user'), true],
    [telegramError(404, 'Not Found'), true],
    [telegramError(429, 'Too Many Requests: retry after 5', 5), false],
    [telegramError(500, 'Internal Server Error'), false],
    [telegramError(502, 'Bad Gateway'), false],
  ])('%j: permanent %s, and the bot token is never in the error', async (answer, permanent) => {
    telegram.enqueue(answer);
    const error = await failure(send());
    expect(error instanceof ChannelPermanentError).toBe(permanent);
    const description = (answer.body as { description: string }).description;
    expect(error.message).toContain(`(${answer.status}): ${description}`);
    expect(JSON.stringify({ message: error.message, stack: error.stack, cause: error.cause })).not.toContain(botToken);
  });

  test('a description that repeats the token has it hidden', async () => {
    telegram.enqueue(telegramError(401, `Unauthorized: bot${botToken} is not known`));
    const error = await failure(send());
    expect(error.message).toBe('Telegram refused sendMessage (401): Unauthorized: bot<bot token> is not known');
  });

  test('network failures and refused addresses never carry the URL, nor the address connected to', async () => {
    const unreachable = { ...context, settings: { ...context.settings, telegramApiBaseUrl: `http://127.0.0.1:${closedPort}` } };
    const refused = await failure(send({}, unreachable));
    expect(refused).not.toBeInstanceOf(ChannelPermanentError);
    expect(refused.message).toBe('The Telegram API could not be reached (Error: connect ECONNREFUSED)');
    expect(refused.cause).toBeUndefined();

    const slow = {
      ...context,
      settings: { ...context.settings, telegramApiBaseUrl: `http://127.0.0.1:${closedPort}/x`, requestTimeoutMs: 1 },
    };
    const guardedError = await failure(send({}, guarded));
    expect(guardedError).toBeInstanceOf(ChannelPermanentError);
    for (const error of [refused, guardedError, await failure(send({}, slow))]) {
      expect(JSON.stringify({ message: error.message, stack: error.stack, cause: error.cause })).not.toContain(botToken);
    }
    expect(telegram.calls).toHaveLength(0);
  });
});

describe('email', () => {
  const base = { host: '127.0.0.1', from: 'Release Bot <agent@example.com>', to: 'ann@example.com, bob@example.com' };
  const send = (config: Record<string, string | number | boolean>, overrides: Partial<ApprovalMessage> = {}, ctx = context) =>
    channelProviders.email.send({ port: sink.port, ...config }, message(overrides), ctx);

  beforeEach(() => {
    sink.mails.length = 0;
    sink.rejectLogins = false;
  });

  test('sends text and HTML with the links; the ref is the Message-ID', async () => {
    const result = await send(base);
    expect(result).toEqual({ externalRef: `<${APPROVAL_ID}@example.com>` });
    const [mail] = await sink.waitForMail(1);
    expect(mail!.envelope).toEqual({ from: 'agent@example.com', to: ['ann@example.com', 'bob@example.com'] });
    expect(mail!.clientName).toBe('example.com');
    expect(mail!.login).toBeUndefined();
    expect(mail!.from).toBe('Release Bot <agent@example.com>');
    expect(mail!.to).toBe('ann@example.com, bob@example.com');
    expect(mail!.subject).toBe('Question from release-bot: Deploy build 42 to production?');
    expect(mail!.messageId).toBe(`<${APPROVAL_ID}@example.com>`);
    expect(mail!.replyTo).toBeUndefined();
    expect(mail!.headers['auto-submitted']).toBe('auto-generated');
    expect(mail!.text).toBe(approvalText(message()));
    expect(mail!.html).toBe(approvalHtml(message()));
    expect(mail!.html).toContain(`href="${PAGE}?choice=no"`);
  });

  test('answered by reply: Reply-To carries the token', async () => {
    await send({ ...base, replyAddress: 'approvals@in.example.com' }, { answerVia: 'reply' });
    const [mail] = await sink.waitForMail(1);
    expect(mail!.replyTo).toBe(`approvals+${TOKEN}@in.example.com`);
    expect(mail!.text).toBe(approvalText(message({ answerVia: 'reply' })));
    expect(mail!.text).not.toContain('https://');
  });

  test('non-ASCII text survives the transfer encodings', async () => {
    const question = `Déployer la version 42 en production ? ${'é'.repeat(100)}\nLigne « deux » — ✓`;
    await send(base, { question, options: ['oui', 'non'] });
    const [mail] = await sink.waitForMail(1);
    expect(mail!.subject).toBe(`Question from release-bot: ${question.replace(/\s+/g, ' ').slice(0, 60)}…`);
    expect(mail!.text).toContain(`\n\n${question}\n\n`);
    expect(mail!.text).toBe(approvalText(message({ question, options: ['oui', 'non'] })));
  });

  test('a server that offers no STARTTLS is refused for good, before any login, unless the operator allows a loopback relay', async () => {
    const strict = { ...context, settings: { ...context.settings, smtpPlaintextLoopback: false } };
    const error = await failure(send({ ...base, user: 'agent', pass: 's3cret' }, {}, strict));
    expect(error).toBeInstanceOf(ChannelPermanentError);
    expect(error.message).toContain('offers no STARTTLS');
    expect(error.message).not.toContain('s3cret');
    // Nothing went in clear: no login, no message.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(sink.mails).toHaveLength(0);
    // The same server, allowed as a relay on this machine.
    await send({ ...base, user: 'agent', pass: 's3cret' });
    expect((await sink.waitForMail(1))[0]!.login).toEqual({ username: 'agent', password: 's3cret' });
  });

  test('logs in with user and pass; a refused login is permanent', async () => {
    await send({ ...base, user: 'agent', pass: 's3cret' });
    expect((await sink.waitForMail(1))[0]!.login).toEqual({ username: 'agent', password: 's3cret' });
    sink.rejectLogins = true;
    const error = await failure(send({ ...base, user: 'agent', pass: 'wrong' }));
    expect(error).toBeInstanceOf(ChannelPermanentError);
    expect(error.message).toMatch(/^The SMTP server refused the message: Invalid login: 535/);
    expect(sink.mails).toHaveLength(1);
  });

  test.each([
    [550, true],
    [554, true],
    [451, false],
    [421, false],
  ])('the server refusing the message with %i: permanent %s', async (code, permanent) => {
    sink.rejectNext(code);
    const error = await failure(send(base));
    expect(error instanceof ChannelPermanentError).toBe(permanent);
    expect(error.message).toContain(String(code));
  });

  test('a private SMTP host is refused by the guard, by address or by name', async () => {
    for (const host of ['127.0.0.1', 'localhost']) {
      const error = await failure(send({ ...base, host }, {}, guarded));
      expect(error).toBeInstanceOf(ChannelPermanentError);
      expect(error.message).toMatch(/^The SMTP host is refused: Refused: the receiver's address is loopback, not public/);
      expect(error.message).not.toMatch(/127\.0\.0\.1|::1/);
    }
    expect(sink.mails).toHaveLength(0);
    await send({ ...base, host: 'localhost' });
    expect(sink.mails).toHaveLength(1);
  });

  test('a server that cannot be reached is retried', async () => {
    const error = await failure(send({ ...base, port: closedPort }));
    expect(error).not.toBeInstanceOf(ChannelPermanentError);
    expect((error as NodeJS.ErrnoException).code).toBe('ESOCKET');
  });

  test('unusable settings are permanent before connecting', async () => {
    for (const config of [
      { host: '127.0.0.1', to: 'a@b.c' },
      { ...base, from: 'no address' },
      { ...base, port: 'smtp' },
      { ...base, secure: 'maybe' },
      { ...base, user: 'agent' },
    ]) {
      expect(await failure(send(config))).toBeInstanceOf(ChannelPermanentError);
    }
    const reply = await failure(send({ ...base, replyAddress: 'a+b@in.example.com' }, { answerVia: 'reply' }));
    expect(reply.message).toBe('The email channel\'s "replyAddress" may not contain "+": the token follows it');
    expect(sink.mails).toHaveLength(0);
  });
});
