// Verifying a webhook delivery (Standard Webhooks). What is signed, which headers carry it and how
// they are read and the timestamp checked are the service's contract (contract/webhook-signing.ts,
// which the service signs by); the HMAC is checked here with Web Crypto only, so it runs in Node,
// browsers, Deno, Bun and edge runtimes alike.
import {
  WebhookSignatureMismatchError,
  readSignedDelivery,
  signedPrefix,
  webhookSecretKey,
  type WebhookHeaderSource,
} from '../../contract/webhook-signing.ts';
import type { PublishedEvent } from './contract.ts';

export {
  WebhookInvalidHeaderError,
  WebhookMissingHeaderError,
  WebhookSignatureMismatchError,
  WebhookTimestampInFutureError,
  WebhookTimestampTooOldError,
  WebhookVerificationError,
} from '../../contract/webhook-signing.ts';

/** A delivery as the receiver gets it: `{id, type, createdAt, data}`, discriminated on `type`. */
export type WebhookEvent = PublishedEvent & { id: string; createdAt: string };

/** Headers as a Fetch `Headers`, or a Node `IncomingHttpHeaders`-like record (any case). */
export type WebhookHeaders = WebhookHeaderSource;

export interface VerifyWebhookOptions {
  /** How far the timestamp may be from this clock, either way (default 300 s). */
  toleranceSeconds?: number;
  /** The clock, in ms (tests). */
  now?: () => number;
}

/**
 * Verifies a delivery from its raw body (the bytes as received: parse only after this) and headers,
 * against one secret or several (while rotating, pass both). Resolves with the event, or rejects
 * with a WebhookVerificationError subclass naming why.
 */
export async function verifyWebhook(
  rawBody: string | Uint8Array | ArrayBuffer,
  headers: WebhookHeaders,
  secret: string | readonly string[],
  options: VerifyWebhookOptions = {},
): Promise<WebhookEvent> {
  const nowSeconds = Math.floor((options.now?.() ?? Date.now()) / 1000);
  const { id, timestamp, signatures } = readSignedDelivery(headers, nowSeconds, options.toleranceSeconds);
  const body = bodyBytes(rawBody);
  const signed = concat(new TextEncoder().encode(signedPrefix(id, timestamp)), body);
  for (const key of typeof secret === 'string' ? [secret] : secret) {
    const cryptoKey = await globalThis.crypto.subtle.importKey('raw', webhookSecretKey(key), { name: 'HMAC', hash: 'SHA-256' }, false, [
      'verify',
    ]);
    for (const candidate of signatures) {
      // subtle.verify compares in constant time.
      if (await globalThis.crypto.subtle.verify('HMAC', cryptoKey, candidate, signed))
        return JSON.parse(new TextDecoder().decode(body)) as WebhookEvent;
    }
  }
  throw new WebhookSignatureMismatchError('No signature matches the delivery');
}

function bodyBytes(body: string | Uint8Array | ArrayBuffer): Uint8Array<ArrayBuffer> {
  if (typeof body === 'string') return new TextEncoder().encode(body);
  // A copy: a Node Buffer may be a view into a larger pool.
  return body instanceof Uint8Array ? new Uint8Array(body) : new Uint8Array(body.slice(0));
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}
