// User channels: each provider's settings (activities/channels/<provider>.ts documents them), so a
// channel that could never send, or never authenticate a reply, fails the deploy instead of the
// first approval. Values written as {{secrets.KEY}} are only known inside the activity; they are
// checked for presence here, their form at send time. Credentials (tokens, signing secrets, a
// password) must be such references: a bundle is readable by every agents:write key and kept in
// every revision. Messages never repeat a value.
import { CHANNEL_PROVIDERS, SECRET_REFERENCE } from '../../contract/bundle-constants.ts';
import { childPointer } from './pointer.ts';
import { isRecord, type Json, type Report } from './report.ts';
import type { ChannelProvider } from '../../contract/bundle.ts';

type Kind = 'string' | 'url' | 'chat' | 'host' | 'port' | 'boolean' | 'address' | 'addresses' | 'replyAddress';

interface Rules {
  /** Every setting the provider reads, in the order the error message lists them. */
  settings: Record<string, Kind>;
  required: readonly string[];
  /** The setting replies cannot do without, and why. */
  reply: { key: string; why: string };
  /**
   * Settings that are credentials: only a {{secrets.KEY}} reference is taken, never a value in clear
   * text, which every agents:write key could read back and every revision would keep.
   */
  credentials: readonly string[];
}

const RULES: Record<ChannelProvider, Rules> = {
  webhook: {
    settings: { url: 'url', secret: 'string' },
    required: ['url'],
    reply: { key: 'secret', why: 'it authenticates the replies posted to /inbound/webhook' },
    credentials: ['secret'],
  },
  slack: {
    settings: { token: 'string', channel: 'string', signingSecret: 'string' },
    required: ['token', 'channel'],
    reply: { key: 'signingSecret', why: "it authenticates Slack's events that carry the replies" },
    credentials: ['token', 'signingSecret'],
  },
  telegram: {
    settings: { botToken: 'string', chatId: 'chat', secretToken: 'string' },
    required: ['botToken', 'chatId'],
    reply: { key: 'secretToken', why: "it is setWebhook's secret_token, which Telegram sends back with every reply" },
    credentials: ['botToken', 'secretToken'],
  },
  email: {
    settings: {
      host: 'host',
      port: 'port',
      secure: 'boolean',
      user: 'string',
      pass: 'string',
      from: 'address',
      to: 'addresses',
      replyAddress: 'replyAddress',
    },
    required: ['host', 'from', 'to'],
    reply: { key: 'replyAddress', why: 'replies are sent to it, with the approval token after a "+"' },
    credentials: ['pass'],
  },
};

/** An approval token (`apr_` + 26 + `.` + 20 characters) and the `+` before it share the 64 characters of a local part. */
export const MAX_REPLY_LOCAL_PART = 64 - 1 - 51;

/**
 * A value holding a {{secrets.KEY}} reference, by the contract's one pattern (`search`, as the
 * pattern is global). Any other `{{` is a literal and is checked as one.
 */
const holdsSecretReference = (value: string) => value.search(SECRET_REFERENCE) !== -1;
const HOST =
  /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)*[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.?$|^\[?[0-9A-Fa-f:.]+\]?$/;
const ADDRESS = /^[^\s@<>,"]+@[^\s@<>,"]+$/;

export function checkChannels(bundle: Json, report: Report): void {
  if (!Array.isArray(bundle.userChannels)) return;
  bundle.userChannels.forEach((channel: unknown, index) => {
    const base = `/userChannels/${index}`;
    if (!isRecord(channel) || !isRecord(channel.config)) return;
    const provider = report.string(channel.provider, `${base}/provider`);
    if (!provider || !(CHANNEL_PROVIDERS as readonly string[]).includes(provider)) return;
    const rules = RULES[provider as ChannelProvider];
    const configPath = `${base}/config`;
    const config = channel.config;

    if (report.clean(configPath)) {
      for (const key of rules.required) {
        if (!Object.hasOwn(config, key)) report.error(configPath, `lacks "${key}", which the ${provider} channel requires`);
      }
      const answerVia = report.string(channel.answerVia, `${base}/answerVia`) ?? 'signed-url';
      if (answerVia === 'reply' && !Object.hasOwn(config, rules.reply.key))
        report.error(configPath, `lacks "${rules.reply.key}", which answerVia "reply" requires: ${rules.reply.why}`);
    }
    const known = Object.keys(rules.settings);
    for (const [key, value] of Object.entries(config)) {
      const path = childPointer(configPath, key);
      if (!report.clean(path)) continue;
      // Own keys only: `constructor` or `toString` must not pass for settings.
      const kind = Object.hasOwn(rules.settings, key) ? rules.settings[key] : undefined;
      if (kind === undefined) report.error(path, `is not a setting of the ${provider} channel (known: ${known.join(', ')})`);
      else {
        const problem = rules.credentials.includes(key) ? credentialProblem(value) : valueProblem(kind, value);
        if (problem) report.error(path, problem);
      }
    }
  });
}

/** A credential setting holds a secret reference, nothing else will do; its form is checked at send time. */
function credentialProblem(value: unknown): string | undefined {
  if (typeof value === 'string' && holdsSecretReference(value)) return undefined;
  return (
    'is a credential, so it must be a {{secrets.KEY}} reference, not a value written in the bundle: ' +
    'store it with PUT /secret/KEY (agent-service secrets set KEY) and list KEY in secretGrants'
  );
}

/** What is wrong with a setting's value, if anything. */
function valueProblem(kind: Kind, value: unknown): string | undefined {
  if (kind === 'port') {
    if (typeof value === 'string' && holdsSecretReference(value)) return undefined;
    const port = typeof value === 'number' ? value : typeof value === 'string' && /^\d{1,5}$/.test(value) ? Number(value) : NaN;
    return Number.isInteger(port) && port >= 1 && port <= 65535 ? undefined : 'must be an integer from 1 to 65535';
  }
  if (kind === 'boolean') {
    if (typeof value === 'boolean' || (typeof value === 'string' && holdsSecretReference(value))) return undefined;
    return 'must be true or false';
  }
  if (kind === 'chat' && typeof value === 'number')
    return Number.isInteger(value) ? undefined : 'must be a chat id (an integer) or @channelusername';
  if (typeof value !== 'string') return 'must be a string';
  if (value.trim() === '') return 'must not be empty';
  if (holdsSecretReference(value)) return undefined;
  return literalProblem(kind, value.trim());
}

function literalProblem(kind: Kind, value: string): string | undefined {
  switch (kind) {
    case 'url':
      return /^https?:$/.test(urlProtocol(value) ?? '') ? undefined : 'must be an absolute http or https URL';
    case 'host':
      return HOST.test(value) ? undefined : 'must be a host name or an IP address, without a scheme or a port';
    case 'address':
      return ADDRESS.test(bareAddress(value)) ? undefined : 'must be an email address, bare or as Name <address>';
    case 'addresses':
      return addressList(value).every((address) => ADDRESS.test(bareAddress(address)))
        ? undefined
        : 'must be email addresses, separated by commas';
    case 'replyAddress':
      return replyAddressProblem(bareAddress(value));
    default:
      return undefined;
  }
}

function urlProtocol(value: string): string | undefined {
  try {
    return new URL(value).protocol;
  } catch {
    return undefined;
  }
}

function bareAddress(value: string): string {
  const angled = /<([^<>]*)>\s*$/.exec(value);
  return (angled ? angled[1]! : value).trim();
}

/** Comma-separated addresses; commas inside a quoted display name do not separate. */
function addressList(value: string): string[] {
  return value
    .replace(/"[^"]*"/g, '""')
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '');
}

function replyAddressProblem(address: string): string | undefined {
  if (!ADDRESS.test(address)) return 'must be an email address such as approvals@in.example.com';
  const local = address.slice(0, address.lastIndexOf('@'));
  if (local.includes('+')) return 'must not contain "+" before the "@": replies go to <local>+<token>@<domain>';
  if (local.length > MAX_REPLY_LOCAL_PART)
    return `has a local part of ${local.length} characters; at most ${MAX_REPLY_LOCAL_PART} fit beside the 51-character token in the 64 an address allows`;
  return undefined;
}
