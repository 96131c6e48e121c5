// An SMTP server for tests (npm smtp-server on 127.0.0.1, plain text, authentication optional)
// that records every message: envelope, raw source, the headers tests look at, and the text and
// HTML bodies decoded (multipart, quoted-printable, base64, RFC 2047 encoded words). It can refuse
// logins and refuse messages with a given SMTP reply code. The MIME decoding is just what
// nodemailer's output needs; there is no mail parser among the dependencies.
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface SinkMail {
  envelope: { from: string | false; to: string[] };
  /** The EHLO name the client gave. */
  clientName: string;
  /** The login used, if any. */
  login: { username: string; password: string } | undefined;
  raw: string;
  /** Every header, by lower-case name, unfolded and with encoded words decoded (the first when repeated). */
  headers: Record<string, string>;
  from: string | undefined;
  to: string | undefined;
  subject: string | undefined;
  replyTo: string | undefined;
  messageId: string | undefined;
  /** Bodies with line endings turned back into `\n`. */
  text: string | undefined;
  html: string | undefined;
}

export interface SmtpSink {
  host: string;
  port: number;
  mails: SinkMail[];
  /** Refuse every AUTH with 535 while true. */
  rejectLogins: boolean;
  /** Refuse the next messages (after DATA) with these SMTP reply codes, in order. */
  rejectNext(...codes: number[]): void;
  waitForMail(count: number, timeoutMs?: number): Promise<SinkMail[]>;
  close(): Promise<void>;
}

export async function startSmtpSink(): Promise<SmtpSink> {
  const mails: SinkMail[] = [];
  const rejections: number[] = [];
  const logins = new Map<string, { username: string; password: string }>();
  const state = { rejectLogins: false };

  const server = new SMTPServer({
    authOptional: true,
    allowInsecureAuth: true,
    // Plain text only: nodemailer would otherwise upgrade and distrust the sink's self-signed certificate.
    disabledCommands: ['STARTTLS'],
    logger: false,
    onAuth(auth, session, callback) {
      if (state.rejectLogins) return callback(new Error('Invalid username or password'));
      logins.set(session.id, { username: auth.username ?? '', password: auth.password ?? '' });
      callback(null, { user: auth.username });
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const code = rejections.shift();
        if (code !== undefined) return callback(Object.assign(new Error(`Refused by the sink (${code})`), { responseCode: code }));
        const raw = Buffer.concat(chunks).toString('utf8');
        mails.push({
          envelope: {
            from: session.envelope.mailFrom && session.envelope.mailFrom.address,
            to: session.envelope.rcptTo.map((rcpt) => rcpt.address),
          },
          clientName: session.hostNameAppearsAs,
          login: logins.get(session.id),
          raw,
          ...parseMail(raw),
        });
        callback();
      });
    },
  });
  server.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.server.once('listening', () => resolve()));
  const { port } = server.server.address() as AddressInfo;

  return {
    host: '127.0.0.1',
    port,
    mails,
    get rejectLogins() {
      return state.rejectLogins;
    },
    set rejectLogins(value: boolean) {
      state.rejectLogins = value;
    },
    rejectNext(...codes) {
      rejections.push(...codes);
    },
    async waitForMail(count, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (mails.length < count) {
        if (Date.now() > deadline) throw new Error(`the SMTP sink got ${mails.length} messages, not ${count}, within ${timeoutMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      return mails.slice(0, count);
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

type Parsed = Omit<SinkMail, 'envelope' | 'clientName' | 'login' | 'raw'>;

function parseMail(raw: string): Parsed {
  const { headers, body } = splitEntity(raw);
  const bodies: { text?: string; html?: string } = {};
  collectBodies(headers, body, bodies);
  return {
    headers,
    from: headers.from,
    to: headers.to,
    subject: headers.subject,
    replyTo: headers['reply-to'],
    messageId: headers['message-id'],
    text: bodies.text,
    html: bodies.html,
  };
}

/** Headers (unfolded, decoded, first of each name) and the body of a message or a MIME part. */
function splitEntity(source: string): { headers: Record<string, string>; body: string } {
  const end = source.search(/\r?\n\r?\n/);
  const headerText = end === -1 ? source : source.slice(0, end);
  const body = end === -1 ? '' : source.slice(end).replace(/^\r?\n\r?\n/, '');
  const headers: Record<string, string> = {};
  for (const line of headerText.replace(/\r?\n(?=[ \t])/g, '').split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    headers[name] ??= decodeWords(line.slice(colon + 1).trim());
  }
  return { headers, body };
}

function parameter(value: string | undefined, name: string): string | undefined {
  const match = new RegExp(`;\\s*${name}="?([^";]+)"?`, 'i').exec(value ?? '');
  return match?.[1]?.trim();
}

function collectBodies(headers: Record<string, string>, body: string, found: { text?: string; html?: string }): void {
  const type = (headers['content-type'] ?? 'text/plain').split(';')[0]!.trim().toLowerCase();
  if (type.startsWith('multipart/')) {
    const boundary = parameter(headers['content-type'], 'boundary');
    if (!boundary) return;
    const parts = body.split(`--${boundary}`).slice(1);
    for (const part of parts) {
      if (part.startsWith('--')) break;
      const entity = splitEntity(part.replace(/^\r?\n/, '').replace(/\r?\n$/, ''));
      collectBodies(entity.headers, entity.body, found);
    }
    return;
  }
  const bytes = decodeTransfer(body, headers['content-transfer-encoding']);
  const charset = parameter(headers['content-type'], 'charset') ?? 'utf-8';
  const text = new TextDecoder(charset).decode(bytes).replace(/\r\n/g, '\n');
  if (type === 'text/plain') found.text ??= text;
  if (type === 'text/html') found.html ??= text;
}

function decodeTransfer(body: string, encoding: string | undefined): Buffer {
  switch ((encoding ?? '7bit').trim().toLowerCase()) {
    case 'base64':
      return Buffer.from(body.replace(/\s+/g, ''), 'base64');
    case 'quoted-printable':
      return quotedPrintable(body.replace(/=\r?\n/g, ''));
    default:
      return Buffer.from(body, 'utf8');
  }
}

/** `=XX` escapes to bytes; everything else is ASCII as it stands. */
function quotedPrintable(text: string): Buffer {
  const bytes: number[] = [];
  for (let index = 0; index < text.length; index++) {
    const hex = text.slice(index + 1, index + 3);
    if (text[index] === '=' && /^[0-9A-Fa-f]{2}$/.test(hex)) {
      bytes.push(parseInt(hex, 16));
      index += 2;
    } else bytes.push(...Buffer.from(text[index]!, 'utf8'));
  }
  return Buffer.from(bytes);
}

/** RFC 2047 encoded words (`=?UTF-8?Q?…?=`, `=?UTF-8?B?…?=`); the space between two of them is not text. */
function decodeWords(value: string): string {
  return value
    .replace(/(\?=)\s+(?==\?)/g, '$1')
    .replace(/=\?([^?]+)\?([BbQq])\?([^?]*)\?=/g, (_whole, charset: string, kind: string, data: string) => {
      const bytes = kind.toUpperCase() === 'B' ? Buffer.from(data, 'base64') : quotedPrintable(data.replace(/_/g, ' '));
      return new TextDecoder(charset).decode(bytes);
    });
}
