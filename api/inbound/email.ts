// Email replies arrive from the user's inbound mail service (a Mailgun-style route, or anything
// that posts JSON): the recipient is `<local>+<token>@<domain>`, the Reply-To we sent. The token is
// HMAC-signed and names one approval, so the address itself is the authentication: the route
// verifies the token, and nothing else in the request needs to be trusted. Accepted bodies:
//   application/json                   {to | recipient, from | sender, subject?, text | body-plain}
//   application/x-www-form-urlencoded  the same names (Mailgun posts recipient, sender, body-plain)
// `to` may list several recipients, comma-separated or as a JSON array, in `Name <addr>` form.
import { jsonObject, type InboundParse, type InboundParser } from './types.ts';

/** An approval token as lib/approval-token.ts writes it, in any case (mail systems may change it). */
const TOKEN_SHAPE = /^[a-z]+_[0-9a-z]+\.[0-9a-z]+$/i;
/** What separates addresses and display names; the pieces with an `@` are the addresses. */
const SEPARATORS = /[\s<>,;:"'()]+/;

/**
 * The token of the first recipient address that carries one: what follows the first `+` of the
 * local part. A token-shaped one wins over another `+` address in the list (`ann+work@…` in a
 * reply to all).
 */
export function recipientToken(recipients: string): string | undefined {
  const tokens: string[] = [];
  // Split, then look: a regex searching for `x@y` would backtrack quadratically over a long field.
  for (const address of recipients.split(SEPARATORS)) {
    const at = address.lastIndexOf('@');
    if (at <= 0 || at === address.length - 1) continue;
    const local = address.slice(0, at);
    const plus = local.indexOf('+');
    if (plus !== -1 && plus < local.length - 1) tokens.push(local.slice(plus + 1));
  }
  return tokens.find((token) => TOKEN_SHAPE.test(token)) ?? tokens[0];
}

type Fields = (name: string) => string | undefined;

function readFields(rawBody: Buffer, contentType: string | undefined): Fields | InboundParse {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === 'application/json') {
    const body = jsonObject(rawBody);
    if (!body) return { kind: 'invalid', status: 400, detail: 'The body is not a JSON object' };
    return (name) => {
      const value = body[name];
      if (typeof value === 'string') return value;
      if (Array.isArray(value) && value.every((item) => typeof item === 'string')) return value.join(', ');
      return undefined;
    };
  }
  if (type === 'application/x-www-form-urlencoded') {
    const params = new URLSearchParams(rawBody.toString('utf8'));
    return (name) => (params.has(name) ? params.getAll(name).join(', ') : undefined);
  }
  return { kind: 'invalid', status: 400, detail: 'Send application/json or application/x-www-form-urlencoded' };
}

export const emailInboundParser: InboundParser = {
  parse(request) {
    const fields = readFields(request.rawBody, request.contentType);
    if (typeof fields !== 'function') return fields;
    const recipients = [fields('to'), fields('recipient')].filter((value) => value !== undefined).join(', ');
    const token = recipientToken(recipients);
    if (!token) return { kind: 'invalid', status: 400, detail: 'No recipient address carries a token (<name>+<token>@<domain>)' };
    const text = fields('text') ?? fields('body-plain');
    if (text === undefined) return { kind: 'invalid', status: 400, detail: 'No text body (text or body-plain)' };
    return { kind: 'reply', lookup: { kind: 'token', token }, text, authenticate: () => true };
  },
};
