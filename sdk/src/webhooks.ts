// Verifying a webhook delivery (Standard Webhooks): the service signs `<id>.<timestamp>.<raw body>`
// with HMAC-SHA256 under the subscription's secret (`whsec_` + base64 key) and sends it as
// `v1,<base64>` in `x-service-signature` (or `webhook-signature`; several may be space-separated).
// Web Crypto only, so it runs in Node, browsers, Deno, Bun and edge runtimes alike.
import type { PublishedEvent } from './contract.ts';

/** A delivery as the receiver gets it: `{id, type, createdAt, data}`, discriminated on `type`. */
export type WebhookEvent = PublishedEvent & { id: string; createdAt: string };

/** Base class: a delivery that is not proven to come from the service. Answer 400, never 2xx. */
export class WebhookVerificationError extends Error {
  override name = 'WebhookVerificationError';
}
export class WebhookMissingHeaderError extends WebhookVerificationError {
  override name = 'WebhookMissingHeaderError';
}
/** A header is there but not of the expected form (a timestamp that is not an integer). */
export class WebhookInvalidHeaderError extends WebhookVerificationError {
  override name = 'WebhookInvalidHeaderError';
}
export class WebhookTimestampTooOldError extends WebhookVerificationError {
  override name = 'WebhookTimestampTooOldError';
}
export class WebhookTimestampInFutureError extends WebhookVerificationError {
  override name = 'WebhookTimestampInFutureError';
}
export class WebhookSignatureMismatchError extends WebhookVerificationError {
  override name = 'WebhookSignatureMismatchError';
}

/** Headers as a Fetch `Headers`, or a Node `IncomingHttpHeaders`-like record (any case). */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

export interface VerifyWebhookOptions {
  /** How far the timestamp may be from this clock, either way (default 300 s). */
  toleranceSeconds?: number;
  /** The clock, in ms (tests). */
  now?: () => number;
}

const NAMES = {
  id: ['x-service-id', 'webhook-id'],
  timestamp: ['x-service-timestamp', 'webhook-timestamp'],
  signature: ['x-service-signature', 'webhook-signature'],
} as const;

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
  const id = headerOf(headers, NAMES.id);
  const timestampText = headerOf(headers, NAMES.timestamp);
  const signatures = headerOf(headers, NAMES.signature);
  const missing = [
    id === undefined && 'x-service-id',
    timestampText === undefined && 'x-service-timestamp',
    signatures === undefined && 'x-service-signature',
  ].filter(Boolean);
  if (missing.length > 0) throw new WebhookMissingHeaderError(`Missing header: ${missing.join(', ')} (or its webhook-* twin)`);
  if (!/^\d+$/.test(timestampText!)) throw new WebhookInvalidHeaderError('The timestamp header is not Unix seconds');
  const timestamp = Number(timestampText);
  const tolerance = options.toleranceSeconds ?? 300;
  const nowSeconds = Math.floor((options.now?.() ?? Date.now()) / 1000);
  if (timestamp < nowSeconds - tolerance) throw new WebhookTimestampTooOldError(`The delivery is older than ${tolerance} s`);
  if (timestamp > nowSeconds + tolerance) throw new WebhookTimestampInFutureError(`The delivery is more than ${tolerance} s in the future`);

  const body = bodyBytes(rawBody);
  const signed = concat(new TextEncoder().encode(`${id}.${timestampText}.`), body);
  const candidates = signatures!
    .split(' ')
    .filter((entry) => entry.startsWith('v1,'))
    .map((entry) => base64ToBytes(entry.slice(3)))
    .filter((bytes): bytes is Uint8Array<ArrayBuffer> => bytes !== undefined);
  for (const key of typeof secret === 'string' ? [secret] : secret) {
    const cryptoKey = await globalThis.crypto.subtle.importKey('raw', secretBytes(key), { name: 'HMAC', hash: 'SHA-256' }, false, [
      'verify',
    ]);
    for (const candidate of candidates) {
      // subtle.verify compares in constant time.
      if (await globalThis.crypto.subtle.verify('HMAC', cryptoKey, candidate, signed))
        return JSON.parse(new TextDecoder().decode(body)) as WebhookEvent;
    }
  }
  throw new WebhookSignatureMismatchError('No signature matches the delivery');
}

function headerOf(headers: WebhookHeaders, names: readonly string[]): string | undefined {
  for (const name of names) {
    let value: string | string[] | null | undefined;
    if (typeof (headers as Headers).get === 'function') value = (headers as Headers).get(name);
    else {
      const record = headers as Record<string, string | string[] | undefined>;
      const key = Object.keys(record).find((candidate) => candidate.toLowerCase() === name);
      value = key === undefined ? undefined : record[key];
    }
    if (Array.isArray(value)) value = value.join(' ');
    if (value !== null && value !== undefined && value !== '') return value;
  }
  return undefined;
}

function bodyBytes(body: string | Uint8Array | ArrayBuffer): Uint8Array<ArrayBuffer> {
  if (typeof body === 'string') return new TextEncoder().encode(body);
  // A copy: a Node Buffer may be a view into a larger pool.
  return body instanceof Uint8Array ? new Uint8Array(body) : new Uint8Array(body.slice(0));
}

function secretBytes(secret: string): Uint8Array<ArrayBuffer> {
  const bytes = base64ToBytes(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret);
  if (!bytes || bytes.length === 0) throw new TypeError('The webhook secret is not whsec_<base64>');
  return bytes;
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

function base64ToBytes(text: string): Uint8Array<ArrayBuffer> | undefined {
  try {
    const binary = atob(text);
    const bytes = new Uint8Array(binary.length);
    for (let index = 0; index < binary.length; index++) bytes[index] = binary.charCodeAt(index);
    return bytes;
  } catch {
    return undefined;
  }
}
