// Channel settings checked at deploy (lib/bundle/check-channels.ts), through validateBundle as the
// deploy route calls it: exact error paths and messages per provider, secret references left for
// send time, and nothing checked where the schema already failed.
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { validateBundle } from '../../lib/bundle/index.ts';

const SECRETS = ['SLACK_TOKEN', 'SLACK_SIGNING', 'TG_TOKEN', 'TG_SECRET', 'HOOK_SECRET', 'SMTP_PASS', 'SMTP_PORT', 'REPLY'];
const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const CREDENTIAL =
  'is a credential, so it must be a {{secrets.KEY}} reference, not a value written in the bundle: ' +
  'store it with PUT /secret/KEY (agent-service secrets set KEY) and list KEY in secretGrants';

function validate(channels: unknown[]) {
  const text = JSON.stringify({
    name: 'demo',
    model: { providerId: 'openrouter', modelId: 'anthropic/claude-sonnet-4' },
    secretGrants: SECRETS,
    userChannels: channels,
  });
  return validateBundle(text, { existingSecretKeys: new Set(SECRETS) });
}

function errorsOf(channels: unknown[]): Array<[string, string]> {
  const result = validate(channels);
  return result.ok ? [] : result.errors.map(({ path, message }) => [path, message]);
}

const slack = { token: '{{secrets.SLACK_TOKEN}}', channel: 'C123', signingSecret: '{{secrets.SLACK_SIGNING}}' };
const telegram = { botToken: '{{secrets.TG_TOKEN}}', chatId: -1001234567890, secretToken: '{{secrets.TG_SECRET}}' };
const webhook = { url: 'https://hooks.example.com/approvals', secret: '{{secrets.HOOK_SECRET}}' };
const email = {
  host: 'smtp.example.com',
  port: 465,
  secure: true,
  user: 'agent',
  pass: '{{secrets.SMTP_PASS}}',
  from: 'Agent <agent@example.com>',
  to: 'ann@example.com, "Doe, Jane" <jane@example.com>',
  replyAddress: 'approvals@in.example.com',
};

describe('valid channels', () => {
  test('every provider, answered by reply and by signed links', () => {
    const channels = [slack, telegram, webhook, email].flatMap((config, index) => [
      { provider: ['slack', 'telegram', 'webhook', 'email'][index], config, answerVia: 'reply' },
      { provider: ['slack', 'telegram', 'webhook', 'email'][index], config },
    ]);
    const result = validate(channels);
    expect(result).toMatchObject({ ok: true, warnings: [] });
  });

  test('only the required settings, with secret references where values are checked', () => {
    expect(
      errorsOf([
        { provider: 'slack', config: { token: '{{secrets.SLACK_TOKEN}}', channel: 'U123' } },
        { provider: 'telegram', config: { botToken: '{{secrets.TG_TOKEN}}', chatId: '@release_channel' } },
        { provider: 'webhook', config: { url: 'http://localhost:8080/hook' } },
        {
          provider: 'email',
          config: { host: '10.0.0.5', port: '{{secrets.SMTP_PORT}}', secure: '{{secrets.SMTP_PORT}}', from: 'a@b.c', to: 'x@y.z' },
        },
        {
          provider: 'email',
          config: { host: 'smtp.example.com', port: '2525', from: 'a@b.c', to: 'x@y.z', replyAddress: '{{secrets.REPLY}}' },
          answerVia: 'reply',
        },
        {
          provider: 'webhook',
          config: { url: 'https://{{secrets.HOOK_SECRET}}.example.com', secret: '{{secrets.HOOK_SECRET}}' },
          answerVia: 'reply',
        },
      ]),
    ).toEqual([]);
  });

  test('a reply address whose local part is exactly 12 characters fits', () => {
    expect(
      errorsOf([{ provider: 'email', config: { ...email, replyAddress: 'abcdefghijkl@in.example.com' }, answerVia: 'reply' }]),
    ).toEqual([]);
  });
});

describe('required settings', () => {
  test('each missing one is reported on the config', () => {
    expect(
      errorsOf([
        { provider: 'slack', config: {} },
        { provider: 'telegram', config: { chatId: 1 } },
        { provider: 'webhook', config: {} },
        { provider: 'email', config: { port: 25 } },
      ]),
    ).toEqual([
      ['/userChannels/0/config', 'lacks "token", which the slack channel requires'],
      ['/userChannels/0/config', 'lacks "channel", which the slack channel requires'],
      ['/userChannels/1/config', 'lacks "botToken", which the telegram channel requires'],
      ['/userChannels/2/config', 'lacks "url", which the webhook channel requires'],
      ['/userChannels/3/config', 'lacks "host", which the email channel requires'],
      ['/userChannels/3/config', 'lacks "from", which the email channel requires'],
      ['/userChannels/3/config', 'lacks "to", which the email channel requires'],
    ]);
  });

  test('answerVia "reply" needs what authenticates or receives the replies', () => {
    const { signingSecret: _s, ...slackLinks } = slack;
    const { secretToken: _t, ...telegramLinks } = telegram;
    const { secret: _w, ...webhookLinks } = webhook;
    const { replyAddress: _r, ...emailLinks } = email;
    expect(
      errorsOf([
        { provider: 'slack', config: slackLinks, answerVia: 'reply' },
        { provider: 'telegram', config: telegramLinks, answerVia: 'reply' },
        { provider: 'webhook', config: webhookLinks, answerVia: 'reply' },
        { provider: 'email', config: emailLinks, answerVia: 'reply' },
        { provider: 'email', config: emailLinks, answerVia: 'signed-url' },
      ]),
    ).toEqual([
      [
        '/userChannels/0/config',
        'lacks "signingSecret", which answerVia "reply" requires: it authenticates Slack\'s events that carry the replies',
      ],
      [
        '/userChannels/1/config',
        'lacks "secretToken", which answerVia "reply" requires: it is setWebhook\'s secret_token, which Telegram sends back with every reply',
      ],
      [
        '/userChannels/2/config',
        'lacks "secret", which answerVia "reply" requires: it authenticates the replies posted to /inbound/webhook',
      ],
      [
        '/userChannels/3/config',
        'lacks "replyAddress", which answerVia "reply" requires: replies are sent to it, with the approval token after a "+"',
      ],
    ]);
  });
});

describe('settings', () => {
  test('an unknown setting is named with the known ones', () => {
    expect(errorsOf([{ provider: 'slack', config: { ...slack, threaded: true, Channel: 'C1' } }])).toEqual([
      ['/userChannels/0/config/threaded', 'is not a setting of the slack channel (known: token, channel, signingSecret)'],
      ['/userChannels/0/config/Channel', 'is not a setting of the slack channel (known: token, channel, signingSecret)'],
    ]);
    expect(errorsOf([{ provider: 'telegram', config: { ...telegram, constructor: 'x', toString: 1 } }]).map(([path]) => path)).toEqual([
      '/userChannels/0/config/constructor',
      '/userChannels/0/config/toString',
    ]);
    expect(errorsOf([{ provider: 'email', config: { ...email, url: 'x' } }])).toEqual([
      [
        '/userChannels/0/config/url',
        'is not a setting of the email channel (known: host, port, secure, user, pass, from, to, replyAddress)',
      ],
    ]);
  });

  test('webhook: an http(s) url; a secret written in the bundle, even a well-formed one, is refused', () => {
    expect(
      errorsOf([
        { provider: 'webhook', config: { url: 'ftp://example.com/x', secret: SECRET } },
        { provider: 'webhook', config: { url: 'example.com/hook', secret: 'plain-secret-of-enough-length' } },
        { provider: 'webhook', config: { url: 42 } },
      ]),
    ).toEqual([
      ['/userChannels/0/config/url', 'must be an absolute http or https URL'],
      ['/userChannels/0/config/secret', CREDENTIAL],
      ['/userChannels/1/config/url', 'must be an absolute http or https URL'],
      ['/userChannels/1/config/secret', CREDENTIAL],
      ['/userChannels/2/config/url', 'must be a string'],
    ]);
  });

  test("every provider's credentials: a reference, nothing else", () => {
    expect(
      errorsOf([
        { provider: 'slack', config: { token: 'xoxb-1', channel: 'C1', signingSecret: 'abc' } },
        { provider: 'telegram', config: { botToken: '123:abc', chatId: 1, secretToken: 'tok' } },
        { provider: 'email', config: { host: 'smtp.example.com', from: 'a@b.c', to: 'x@y.z', pass: 'hunter2' } },
        { provider: 'slack', config: { token: 'Bearer {{secrets.SLACK_TOKEN}}', channel: 'C1', signingSecret: 42 } },
      ]),
    ).toEqual([
      ['/userChannels/0/config/token', CREDENTIAL],
      ['/userChannels/0/config/signingSecret', CREDENTIAL],
      ['/userChannels/1/config/botToken', CREDENTIAL],
      ['/userChannels/1/config/secretToken', CREDENTIAL],
      ['/userChannels/2/config/pass', CREDENTIAL],
      ['/userChannels/3/config/signingSecret', CREDENTIAL],
    ]);
  });

  test('email: port, secure, host and addresses', () => {
    const base = { host: 'smtp.example.com', from: 'a@b.c', to: 'x@y.z' };
    expect(
      errorsOf([
        { provider: 'email', config: { ...base, port: 0 } },
        { provider: 'email', config: { ...base, port: 65536 } },
        { provider: 'email', config: { ...base, port: 587.5 } },
        { provider: 'email', config: { ...base, port: 'smtp' } },
        { provider: 'email', config: { ...base, port: 65535, secure: 'yes' } },
        { provider: 'email', config: { ...base, host: 'smtp://smtp.example.com:25' } },
        { provider: 'email', config: { ...base, from: 'Agent', to: 'x@y.z, nobody' } },
        { provider: 'email', config: { ...base, user: 7, pass: '' } },
      ]),
    ).toEqual([
      ['/userChannels/0/config/port', 'must be an integer from 1 to 65535'],
      ['/userChannels/1/config/port', 'must be an integer from 1 to 65535'],
      ['/userChannels/2/config/port', 'must be an integer from 1 to 65535'],
      ['/userChannels/3/config/port', 'must be an integer from 1 to 65535'],
      ['/userChannels/4/config/secure', 'must be true or false'],
      ['/userChannels/5/config/host', 'must be a host name or an IP address, without a scheme or a port'],
      ['/userChannels/6/config/from', 'must be an email address, bare or as Name <address>'],
      ['/userChannels/6/config/to', 'must be email addresses, separated by commas'],
      ['/userChannels/7/config/user', 'must be a string'],
      ['/userChannels/7/config/pass', CREDENTIAL],
    ]);
  });

  test('braces that are not a {{secrets.KEY}} reference are a literal, checked as one', () => {
    const base = { host: 'smtp.example.com', from: 'a@b.c', to: 'x@y.z' };
    expect(
      errorsOf([
        { provider: 'email', config: { ...base, port: '{{ port }}' } },
        { provider: 'email', config: { ...base, port: 25, secure: '{{secure}}' } },
        { provider: 'email', config: { ...base, host: '{{env.SMTP_HOST}}' } },
      ]),
    ).toEqual([
      ['/userChannels/0/config/port', 'must be an integer from 1 to 65535'],
      ['/userChannels/1/config/secure', 'must be true or false'],
      ['/userChannels/2/config/host', 'must be a host name or an IP address, without a scheme or a port'],
    ]);
  });

  test('email: the reply address leaves room for the token', () => {
    const channel = (replyAddress: string) => ({ provider: 'email', config: { ...email, replyAddress }, answerVia: 'reply' });
    expect(errorsOf([channel('abcdefghijklm@in.example.com'), channel('approvals+x@in.example.com'), channel('approvals')])).toEqual([
      [
        '/userChannels/0/config/replyAddress',
        'has a local part of 13 characters; at most 12 fit beside the 51-character token in the 64 an address allows',
      ],
      ['/userChannels/1/config/replyAddress', 'must not contain "+" before the "@": replies go to <local>+<token>@<domain>'],
      ['/userChannels/2/config/replyAddress', 'must be an email address such as approvals@in.example.com'],
    ]);
  });

  test('telegram: chat id forms', () => {
    expect(
      errorsOf([
        { provider: 'telegram', config: { botToken: '{{secrets.TG_TOKEN}}', chatId: 1.5 } },
        { provider: 'telegram', config: { botToken: '{{secrets.TG_TOKEN}}', chatId: true } },
      ]),
    ).toEqual([
      ['/userChannels/0/config/chatId', 'must be a chat id (an integer) or @channelusername'],
      ['/userChannels/1/config/chatId', 'must be a string'],
    ]);
  });

  test('slack: empty values are refused', () => {
    expect(errorsOf([{ provider: 'slack', config: { token: '{{secrets.SLACK_TOKEN}}', channel: '  ' } }])).toEqual([
      ['/userChannels/0/config/channel', 'must not be empty'],
    ]);
  });

  test('messages never repeat a value, which may be a credential', () => {
    const canary = 'xoxb-canary-4f1c9e';
    const result = validate([
      { provider: 'slack', config: { token: canary, channel: canary, other: canary } },
      { provider: 'webhook', config: { url: canary, secret: canary } },
      { provider: 'email', config: { host: canary, from: canary, to: canary, replyAddress: canary, port: canary } },
    ]);
    expect(result.ok).toBe(false);
    expect(JSON.stringify(result)).not.toContain(canary);
  });
});

describe('where the schema already failed', () => {
  test('a config with a schema error is not checked for missing settings; its other values still are', () => {
    expect(errorsOf([{ provider: 'slack', config: { token: 'x'.repeat(5000), other: 1 } }]).map(([path]) => path)).toEqual([
      '/userChannels/0/config/token',
      '/userChannels/0/config/other',
    ]);
  });

  test('an unknown provider or answerVia stops the channel checks that depend on them', () => {
    expect(
      errorsOf([
        { provider: 'sms', config: {} },
        { provider: 'slack', config: { token: '{{secrets.SLACK_TOKEN}}', channel: 'C1' }, answerVia: 'link' },
      ]).map(([path]) => path),
    ).toEqual(['/userChannels/0/provider', '/userChannels/1/answerVia']);
  });
});

test('any channel list is checked without throwing', () => {
  const value = fc.oneof(fc.string(), fc.integer(), fc.double(), fc.boolean());
  const config = fc.dictionary(
    fc.constantFrom('token', 'channel', 'url', 'port', 'secure', 'replyAddress', 'chatId', 'constructor', 'x'),
    value,
  );
  const channel = fc.record(
    {
      provider: fc.constantFrom('webhook', 'slack', 'telegram', 'email', 'sms'),
      config: fc.oneof(config, fc.jsonValue()),
      answerVia: fc.constantFrom('reply', 'signed-url', 'x'),
    },
    { requiredKeys: [] },
  );
  fc.assert(
    fc.property(fc.array(channel, { maxLength: 4 }), (channels) => {
      expect(() => validate(channels)).not.toThrow();
    }),
  );
});
