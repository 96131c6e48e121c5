// The inbound parsers, one provider at a time: what each request becomes (a reply to look up, an
// answer given at once, a rejection), and that authenticate() accepts exactly the requests signed
// with the channel's secret. Signatures are computed here independently of the parsers.
import { createHmac } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { describe, expect, test } from 'vitest';
import { inboundParsers, type InboundParse, type InboundRequest } from '../../api/inbound/index.ts';
import { recipientToken } from '../../api/inbound/email.ts';
import { generateWebhookSecret, signWebhook } from '../../lib/webhook-signature.ts';

const NOW = 1_700_000_000_000;
const NOW_SECONDS = NOW / 1000;

function request(body: string | object, headers: IncomingHttpHeaders = {}, contentType = 'application/json'): InboundRequest {
  return { rawBody: Buffer.from(typeof body === 'string' ? body : JSON.stringify(body)), headers, contentType, now: NOW };
}

function reply(parse: InboundParse): Extract<InboundParse, { kind: 'reply' }> {
  if (parse.kind !== 'reply') throw new Error(`expected a reply, got ${JSON.stringify(parse)}`);
  return parse;
}

const IGNORED = { kind: 'respond', status: 200, body: { ok: true, ignored: true } };

describe('slack', () => {
  const parser = inboundParsers.slack;
  const signingSecret = '8f742231b10e8888abcd99yyyzzz85a5';

  function signed(body: object, timestamp = NOW_SECONDS, secret = signingSecret): InboundRequest {
    const raw = JSON.stringify(body);
    const signature = `v0=${createHmac('sha256', secret).update(`v0:${timestamp}:${raw}`).digest('hex')}`;
    return request(raw, { 'x-slack-request-timestamp': String(timestamp), 'x-slack-signature': signature });
  }

  const threadReply = (event: object = {}) => ({
    type: 'event_callback',
    team_id: 'T1',
    event: {
      type: 'message',
      channel: 'C024BE91L',
      user: 'U2147483697',
      text: 'yes &amp; go &lt;3',
      ts: '1700000100.000200',
      thread_ts: '1700000000.000100',
      ...event,
    },
  });

  test('url_verification is answered with its challenge', () => {
    expect(parser.parse(request({ type: 'url_verification', token: 'x', challenge: 'abc123' }))).toEqual({
      kind: 'respond',
      status: 200,
      body: { challenge: 'abc123' },
    });
    expect(parser.parse(request({ type: 'url_verification' }))).toMatchObject({ kind: 'invalid', status: 400 });
  });

  test('a reply in a thread is looked up by channel and thread_ts, its text unescaped', () => {
    const parsed = reply(parser.parse(signed(threadReply())));
    expect(parsed.lookup).toEqual({ kind: 'ref', externalRef: 'C024BE91L:1700000000.000100' });
    expect(parsed.text).toBe('yes & go <3');
    expect(parsed.choice).toBeUndefined();
    // Who wrote it: on a team's approval, the reply votes only as the approver with this Slack user.
    expect(parsed.sender).toBe('U2147483697');
    expect(reply(parser.parse(signed(threadReply({ user: undefined })))).sender).toBeUndefined();
  });

  test('a reply also sent to the channel is still a reply', () => {
    expect(reply(parser.parse(signed(threadReply({ subtype: 'thread_broadcast' })))).lookup).toEqual({
      kind: 'ref',
      externalRef: 'C024BE91L:1700000000.000100',
    });
  });

  test('the signature is checked with the channel signing secret, in constant time', () => {
    const parsed = reply(parser.parse(signed(threadReply())));
    expect(parsed.authenticate({ signingSecret })).toBe(true);
    expect(parsed.authenticate({ signingSecret: 'another-secret' })).toBe(false);
    expect(parsed.authenticate({ token: 'xoxb-1' })).toBe(false);
    expect(parsed.authenticate({ signingSecret: '' })).toBe(false);
  });

  test('a body changed after signing does not authenticate', () => {
    const good = signed(threadReply());
    const tampered = { ...good, rawBody: Buffer.from(good.rawBody.toString().replace('yes', 'no ')) };
    expect(reply(parser.parse(tampered)).authenticate({ signingSecret })).toBe(false);
    const unsigned = { ...good, headers: { 'x-slack-request-timestamp': String(NOW_SECONDS) } };
    expect(reply(parser.parse(unsigned)).authenticate({ signingSecret })).toBe(false);
  });

  test('a stale or missing timestamp is refused before any lookup', () => {
    expect(parser.parse(signed(threadReply(), NOW_SECONDS - 301))).toEqual({
      kind: 'invalid',
      status: 401,
      detail: 'X-Slack-Request-Timestamp is more than 300 s away',
    });
    expect(parser.parse(signed(threadReply(), NOW_SECONDS + 301))).toMatchObject({ kind: 'invalid', status: 401 });
    expect(parser.parse(signed(threadReply(), NOW_SECONDS - 299)).kind).toBe('reply');
    expect(parser.parse(request(threadReply()))).toEqual({ kind: 'invalid', status: 401, detail: 'X-Slack-Request-Timestamp is missing' });
  });

  test('events that are not replies are acknowledged and ignored', () => {
    const { thread_ts: _thread, ...topLevel } = threadReply().event;
    for (const body of [
      threadReply({ bot_id: 'B1' }),
      threadReply({ subtype: 'message_changed' }),
      threadReply({ thread_ts: '1700000100.000200' }),
      { type: 'event_callback', event: topLevel },
      { type: 'event_callback', event: { type: 'reaction_added', reaction: 'thumbsup' } },
      { type: 'app_rate_limited' },
    ]) {
      expect(parser.parse(signed(body))).toEqual(IGNORED);
    }
  });

  test('a body that is not a JSON object is malformed', () => {
    expect(parser.parse(request('not json'))).toEqual({ kind: 'invalid', status: 400, detail: 'The body is not a JSON object' });
    expect(parser.parse(request('[1]'))).toMatchObject({ kind: 'invalid', status: 400 });
  });
});

describe('telegram', () => {
  const parser = inboundParsers.telegram;
  const secretToken = 'telegram_Secret-123';
  const update = (message: object) => ({ update_id: 9, message });
  const replyMessage = {
    message_id: 77,
    chat: { id: 4242, type: 'private' },
    from: { id: 4242, is_bot: false },
    text: '2. not today',
    reply_to_message: { message_id: 501, chat: { id: 4242 }, from: { id: 1, is_bot: true } },
  };

  test('a reply to our message is looked up by chat id and the replied message id', () => {
    const parsed = reply(parser.parse(request(update(replyMessage), { 'x-telegram-bot-api-secret-token': secretToken })));
    expect(parsed.lookup).toEqual({ kind: 'ref', externalRef: '4242:501' });
    expect(parsed.text).toBe('2. not today');
    expect(parsed.sender).toBe('4242');
  });

  test('group chats have negative ids', () => {
    const parsed = reply(parser.parse(request(update({ ...replyMessage, chat: { id: -1001234567890, type: 'supergroup' } }))));
    expect(parsed.lookup).toEqual({ kind: 'ref', externalRef: '-1001234567890:501' });
    // In a group the sender is the person, not the chat.
    expect(parsed.sender).toBe('4242');
  });

  test('the secret header must equal the channel secretToken', () => {
    const withHeader = (value?: string) =>
      reply(parser.parse(request(update(replyMessage), value === undefined ? {} : { 'x-telegram-bot-api-secret-token': value })));
    expect(withHeader(secretToken).authenticate({ secretToken })).toBe(true);
    expect(withHeader('telegram_Secret-124').authenticate({ secretToken })).toBe(false);
    expect(withHeader(`${secretToken}x`).authenticate({ secretToken })).toBe(false);
    expect(withHeader().authenticate({ secretToken })).toBe(false);
    expect(withHeader('').authenticate({ secretToken: '' })).toBe(false);
    expect(withHeader(secretToken).authenticate({ botToken: '1:a' })).toBe(false);
  });

  test('updates that are not text replies are acknowledged and ignored', () => {
    const { reply_to_message: _replied, ...plain } = replyMessage;
    const { text: _text, ...sticker } = replyMessage;
    for (const body of [
      update(plain),
      update(sticker),
      { update_id: 10, edited_message: replyMessage },
      { update_id: 11, callback_query: { id: '1' } },
    ]) {
      expect(parser.parse(request(body))).toEqual(IGNORED);
    }
  });

  test('a body that is not a JSON object is malformed', () => {
    expect(parser.parse(request('{'))).toEqual({ kind: 'invalid', status: 400, detail: 'The body is not a JSON object' });
  });
});

describe('email', () => {
  const parser = inboundParsers.email;
  const token = 'apr_0123456789abcdefghjkmnpqrs.abcdefghjkmnpqrstvwx';
  const address = `approvals+${token}@in.example.com`;

  test('JSON: the token from the recipient, the text as body', () => {
    const parsed = reply(parser.parse(request({ to: address, from: 'ann@example.com', subject: 'Re: Question', text: 'yes\n\n> quoted' })));
    expect(parsed.lookup).toEqual({ kind: 'token', token });
    expect(parsed.text).toBe('yes\n\n> quoted');
    expect(parsed.authenticate({})).toBe(true);
  });

  test('JSON: recipient and body-plain, and a list of recipients', () => {
    expect(reply(parser.parse(request({ recipient: address, sender: 'ann@example.com', 'body-plain': 'no' }))).text).toBe('no');
    const listed = reply(parser.parse(request({ to: ['Ann <ann@example.com>', `Approvals <${address}>`], text: 'yes' })));
    expect(listed.lookup).toEqual({ kind: 'token', token });
  });

  test('form-encoded, as a Mailgun route posts it', () => {
    const body = new URLSearchParams({
      recipient: address,
      sender: 'ann@example.com',
      subject: 'Re: Question',
      'body-plain': 'yes - ship it\r\n',
    });
    const parsed = reply(parser.parse(request(body.toString(), {}, 'application/x-www-form-urlencoded; charset=utf-8')));
    expect(parsed.lookup).toEqual({ kind: 'token', token });
    expect(parsed.text).toBe('yes - ship it\r\n');
  });

  test.each([
    [address, token],
    [`"Approvals" <${address}>`, token],
    [`ann@example.com, "Doe, Jane" <jane@example.com>, Approvals <${address}>`, token],
    [`Ann <ann+work@example.com>, ${address}`, token],
    [`APPROVALS+${token.toUpperCase()}@IN.EXAMPLE.COM`, token.toUpperCase()],
    ['ann+work@example.com', 'work'],
    ['approvals+a+b@in.example.com', 'a+b'],
    ['approvals@in.example.com', undefined],
    ['approvals+@in.example.com', undefined],
    ['', undefined],
  ])('recipient %j → token %j', (recipients, expected) => {
    expect(recipientToken(recipients)).toBe(expected);
  });

  test('a huge recipient field is read in linear time', () => {
    expect(recipientToken('a'.repeat(500_000))).toBeUndefined();
    expect(recipientToken(`${'a+'.repeat(100_000)}, ${address}`)).toBe(token);
  });

  test('no token, no text, or another content type is malformed', () => {
    expect(parser.parse(request({ to: 'approvals@in.example.com', text: 'yes' }))).toEqual({
      kind: 'invalid',
      status: 400,
      detail: 'No recipient address carries a token (<name>+<token>@<domain>)',
    });
    expect(parser.parse(request({ to: address }))).toEqual({ kind: 'invalid', status: 400, detail: 'No text body (text or body-plain)' });
    expect(parser.parse(request('to=x', {}, 'text/plain'))).toMatchObject({ kind: 'invalid', status: 400 });
    expect(parser.parse(request('{', {}, 'application/json'))).toMatchObject({ kind: 'invalid', status: 400 });
  });
});

describe('webhook', () => {
  const parser = inboundParsers.webhook;
  const secret = generateWebhookSecret();
  const approvalId = 'apr_0123456789abcdefghjkmnpqrs';

  function signed(body: object, options: { timestamp?: number; key?: string; names?: 'standard' | 'service' } = {}): InboundRequest {
    const raw = JSON.stringify(body);
    const all = signWebhook(options.key ?? secret, 'msg_1', options.timestamp ?? NOW_SECONDS, raw);
    const prefix = options.names === 'service' ? 'x-service-' : 'webhook-';
    const headers = Object.fromEntries(Object.entries(all).filter(([name]) => name.startsWith(prefix)));
    return request(raw, headers);
  }

  test('a signed answer names the approval, the choice and the note', () => {
    const parsed = reply(parser.parse(signed({ approvalId, choice: 'yes', note: 'ship it' })));
    expect(parsed.lookup).toEqual({ kind: 'approval', approvalId });
    expect(parsed.choice).toBe('yes');
    expect(parsed.note).toBe('ship it');
    expect(parsed.authenticate({ url: 'https://x', secret })).toBe(true);
    expect(reply(parser.parse(signed({ approvalId, choice: 'no' }))).note).toBeNull();
  });

  test('the x-service-* header names work too', () => {
    expect(reply(parser.parse(signed({ approvalId, choice: 'yes' }, { names: 'service' }))).authenticate({ secret })).toBe(true);
  });

  test('another secret, a changed body, or a channel without a usable secret does not authenticate', () => {
    const parsed = reply(parser.parse(signed({ approvalId, choice: 'yes' }, { key: generateWebhookSecret() })));
    expect(parsed.authenticate({ secret })).toBe(false);
    const good = signed({ approvalId, choice: 'yes' });
    const tampered = { ...good, rawBody: Buffer.from(JSON.stringify({ approvalId, choice: 'no' })) };
    expect(reply(parser.parse(tampered)).authenticate({ secret })).toBe(false);
    expect(reply(parser.parse(good)).authenticate({ url: 'https://x' })).toBe(false);
    expect(reply(parser.parse(good)).authenticate({ secret: 'not-a-whsec' })).toBe(false);
  });

  test('a stale or missing timestamp is refused before any lookup', () => {
    expect(parser.parse(signed({ approvalId, choice: 'yes' }, { timestamp: NOW_SECONDS - 301 }))).toEqual({
      kind: 'invalid',
      status: 401,
      detail: 'webhook-timestamp is more than 300 s away',
    });
    expect(parser.parse(signed({ approvalId, choice: 'yes' }, { timestamp: NOW_SECONDS + 301 }))).toMatchObject({
      kind: 'invalid',
      status: 401,
    });
    expect(parser.parse(request({ approvalId, choice: 'yes' }))).toEqual({
      kind: 'invalid',
      status: 401,
      detail: 'webhook-timestamp is missing',
    });
  });

  test.each([
    ['not json'],
    [JSON.stringify({ choice: 'yes' })],
    [JSON.stringify({ approvalId, choice: ' ' })],
    [JSON.stringify({ approvalId, choice: 'yes', note: 3 })],
  ])('a malformed body is refused: %s', (body) => {
    expect(parser.parse(request(body, signWebhook(secret, 'msg_1', NOW_SECONDS, body)))).toEqual({
      kind: 'invalid',
      status: 400,
      detail: 'Send a JSON object {approvalId, choice, note?}',
    });
  });
});
