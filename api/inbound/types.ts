// The contract between the inbound route (POST /inbound/<provider>) and each provider's parser. A
// parser reads one raw request and says what it is without any I/O: a reply to look up (with a way
// to authenticate it once the route has found the channel's config), an answer to send at once
// (Slack's url_verification, events that are not replies), or a request to reject.
import type { IncomingHttpHeaders } from 'node:http';
import type { ResolvedChannelConfig } from '../../activities/channels/types.ts';
import { isRecord } from '../../lib/workflow-safe/is-record.ts';

export { isRecord };

export interface InboundRequest {
  /** The body exactly as received: signatures are computed over these bytes. */
  rawBody: Buffer;
  headers: IncomingHttpHeaders;
  contentType: string | undefined;
  /** Milliseconds since the epoch: timestamps are checked against it. */
  now: number;
}

/** How the route finds the approval: by the provider's name of our message, a signed token, or its id. */
export type InboundLookup =
  { kind: 'ref'; externalRef: string } | { kind: 'token'; token: string } | { kind: 'approval'; approvalId: string };

export type InboundParse =
  | {
      kind: 'reply';
      lookup: InboundLookup;
      /** Free text to match against the options (api/inbound/reply-matching.ts). */
      text?: string;
      /** Who wrote a chat reply, as the provider names people (Slack's user id, Telegram's `from.id`). */
      sender?: string;
      /** An explicit choice and note (the webhook channel), used instead of `text`. */
      choice?: string;
      note?: string | null;
      /** true when the request is authentic for this channel's resolved config (signature, secret header). */
      authenticate(config: ResolvedChannelConfig): boolean;
    }
  | { kind: 'respond'; status: number; body: unknown } // answered without touching any approval (Slack url_verification challenge, events that are not replies)
  | { kind: 'invalid'; status: 400 | 401; detail: string }; // malformed body, stale timestamp

export interface InboundParser {
  parse(request: InboundRequest): InboundParse;
}

/** The answer to an event that is authentic or not, but in any case not a reply to an approval. */
export const IGNORED: InboundParse = { kind: 'respond', status: 200, body: { ok: true, ignored: true } };

/** One header's value (the first, when repeated). */
export function headerValue(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}

/** The body as a JSON object, or undefined when it is not one. */
export function jsonObject(rawBody: Buffer): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(rawBody.toString('utf8'));
    return isRecord(value) ? value : undefined;
  } catch {
    return undefined;
  }
}
