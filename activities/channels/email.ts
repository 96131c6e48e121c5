// The email channel: the approval as one message over SMTP (nodemailer). Config:
//   host          required; the SMTP server
//   port          default 587
//   secure        default port == 465; TLS from the first byte (otherwise STARTTLS, required: a server
//                 that does not offer it is refused, unless SMTP_PLAINTEXT_LOOPBACK lets a relay on a
//                 loopback address take plain text)
//   user, pass    optional; SMTP authentication, both or neither
//   from          required; `agent@example.com` or `Agent <agent@example.com>`
//   to            required; one address or several, comma-separated
//   replyAddress  required when answerVia = reply; e.g. `approvals@in.example.com`. Replies go to
//                 `approvals+<token>@in.example.com`, routed by the user's inbound mail service to
//                 /inbound/email (api/inbound/email.ts); the signed token is the authentication.
// The SMTP host goes through the outbound guard's lookup, and nodemailer connects to the address
// that lookup approved (with the host name kept for TLS), so a private address is refused here
// as it is for HTTP. Rejections that repeat on a retry (credentials, 5xx replies) are permanent.
import { isIP } from 'node:net';
import { createTransport } from 'nodemailer';
import { approvalHtml, approvalSubject, approvalText } from './approval-message.ts';
import { OutboundAddressRefusedError, type OutboundClient } from '../../lib/outbound.ts';
import { ChannelPermanentError, type ChannelProviderImpl, type ResolvedChannelConfig } from './types.ts';

function setting(config: ResolvedChannelConfig, key: string): string | undefined {
  const value = config[key];
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

function required(config: ResolvedChannelConfig, key: string): string {
  const value = setting(config, key);
  if (value === undefined) throw new ChannelPermanentError(`The email channel has no "${key}"`);
  return value;
}

/** Values may come from secrets, which are strings: `587` and `"587"` are the same port. */
function portOf(config: ResolvedChannelConfig): number {
  const raw = config.port ?? 587;
  const port = typeof raw === 'number' ? raw : typeof raw === 'string' && /^\d{1,5}$/.test(raw.trim()) ? Number(raw) : NaN;
  if (!Number.isInteger(port) || port < 1 || port > 65535)
    throw new ChannelPermanentError('The email channel\'s "port" is not a port number');
  return port;
}

function secureOf(config: ResolvedChannelConfig, port: number): boolean {
  const raw = config.secure;
  if (raw === undefined) return port === 465;
  if (raw === true || raw === 'true') return true;
  if (raw === false || raw === 'false') return false;
  throw new ChannelPermanentError('The email channel\'s "secure" is neither true nor false');
}

/** The bare address of `Name <addr>` or `addr`. */
export function bareAddress(value: string): string {
  const angled = /<([^<>]*)>\s*$/.exec(value);
  return (angled ? angled[1]! : value).trim();
}

function splitAddress(address: string, key: string): { local: string; domain: string } {
  const at = address.lastIndexOf('@');
  if (at < 1 || at === address.length - 1) throw new ChannelPermanentError(`The email channel's "${key}" is not an email address`);
  return { local: address.slice(0, at), domain: address.slice(at + 1) };
}

/** `approvals@in.example.com` and a token give `approvals+<token>@in.example.com`. */
export function replyAddressFor(replyAddress: string, token: string): string {
  const { local, domain } = splitAddress(bareAddress(replyAddress), 'replyAddress');
  if (local.includes('+')) throw new ChannelPermanentError('The email channel\'s "replyAddress" may not contain "+": the token follows it');
  return `${local}+${token}@${domain}`;
}

function resolveHost(outbound: OutboundClient, host: string): Promise<string> {
  return new Promise((resolve, reject) => {
    outbound.lookup(host, { all: false }, (error, address) => {
      if (error) reject(error);
      else if (typeof address === 'string') resolve(address);
      else reject(new Error(`${host} has no address`));
    });
  });
}

interface SmtpError extends Error {
  code?: string;
  responseCode?: number;
}

function isLoopback(address: string): boolean {
  return address === '::1' || address.startsWith('127.') || address.startsWith('::ffff:127.');
}

/** Whether the server would refuse the same message again. 503 is a session in the wrong state, not a refusal. */
function isPermanent(error: SmtpError): boolean {
  // ETLS: the server offers no STARTTLS (or it failed), which another try will not change.
  if (error.code === 'EAUTH' || error.code === 'ECONFIG' || error.code === 'ETLS') return true;
  return typeof error.responseCode === 'number' && error.responseCode >= 500 && error.responseCode < 600 && error.responseCode !== 503;
}

export const emailProvider: ChannelProviderImpl = {
  provider: 'email',
  async send(config, message, context) {
    const host = required(config, 'host').replace(/^\[(.*)\]$/, '$1');
    const from = required(config, 'from');
    const to = required(config, 'to');
    const port = portOf(config);
    const secure = secureOf(config, port);
    const user = setting(config, 'user');
    const pass = typeof config.pass === 'string' && config.pass !== '' ? config.pass : undefined;
    if ((user === undefined) !== (pass === undefined))
      throw new ChannelPermanentError('The email channel needs both "user" and "pass", or neither');
    const fromDomain = splitAddress(bareAddress(from), 'from').domain;
    const messageId = `<${message.approvalId}@${fromDomain}>`;
    let replyTo: string | undefined;
    if (message.answerVia === 'reply') {
      const replyAddress = setting(config, 'replyAddress');
      if (!replyAddress) throw new ChannelPermanentError('An email channel answered by reply needs a "replyAddress"');
      replyTo = replyAddressFor(replyAddress, message.token);
    }

    let address: string;
    try {
      address = await resolveHost(context.outbound, host);
    } catch (error) {
      if (error instanceof OutboundAddressRefusedError)
        throw new ChannelPermanentError(`The SMTP host is refused: ${error.message}`, { cause: error });
      throw error;
    }

    const timeoutMs = context.settings.requestTimeoutMs;
    // Never the login or the message in clear over the network: STARTTLS is required, not just taken when
    // offered (a man in the middle could strip the offer). Only the operator may allow plain text, to a
    // relay on this machine.
    const plaintextAllowed = context.settings.smtpPlaintextLoopback && isLoopback(address);
    const transport = createTransport({
      host: address,
      port,
      secure,
      requireTLS: !secure && !plaintextAllowed,
      // The certificate is checked against the name, not the address connected to; EHLO names our sender's domain.
      tls: isIP(host) ? {} : { servername: host },
      name: fromDomain,
      auth: user !== undefined ? { user, pass } : undefined,
      connectionTimeout: timeoutMs,
      greetingTimeout: timeoutMs,
      socketTimeout: timeoutMs,
      disableFileAccess: true,
      disableUrlAccess: true,
    });
    try {
      await transport.sendMail({
        from,
        to,
        replyTo,
        subject: approvalSubject(message),
        text: approvalText(message),
        html: approvalHtml(message),
        messageId,
        headers: {
          // Out-of-office and other automatic answers should not come back to the reply address.
          'Auto-Submitted': 'auto-generated',
          'X-Auto-Response-Suppress': 'All',
        },
      });
    } catch (caught) {
      const error = caught as SmtpError;
      if (error.code === 'ETLS' && !secure) {
        throw new ChannelPermanentError(
          'The SMTP server offers no STARTTLS, and mail goes only over TLS: use a port with TLS from the first byte ' +
            '("secure": true, usually 465), or a server that offers STARTTLS',
          { cause: error },
        );
      }
      if (isPermanent(error)) throw new ChannelPermanentError(`The SMTP server refused the message: ${error.message}`, { cause: error });
      throw error;
    } finally {
      transport.close();
    }
    return { externalRef: messageId };
  },
};
