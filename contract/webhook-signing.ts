// What a webhook signature is, in the Standard Webhooks layout (https://www.standardwebhooks.com):
// HMAC-SHA256 over "<id>.<timestamp>.<raw body>", keyed with the base64 part of a `whsec_` secret,
// sent as `v1,<base64>` (several may be space-separated while secrets rotate), under the service's
// own header names (x-service-*) and the standard ones (webhook-*). The rules are here once, for the
// service (signing deliveries, verifying inbound calls) and every client (verifying deliveries); the
// HMAC itself is computed by each side with its platform's crypto (Node's, or Web Crypto).

export const WEBHOOK_SECRET_PREFIX = 'whsec_';
export const DEFAULT_TOLERANCE_SECONDS = 300;
/** Shortest key a secret may hold, in bytes (a generated one holds 32). */
export const MIN_SECRET_BYTES = 16;

/** Read in this order: the standard names win when both are present. */
export const WEBHOOK_HEADER_NAMES = {
  id: ['webhook-id', 'x-service-id'],
  timestamp: ['webhook-timestamp', 'x-service-timestamp'],
  signature: ['webhook-signature', 'x-service-signature'],
} as const;

/** Base class: catch this to reject any unverifiable delivery (answer 400 or 401, never 2xx). */
export class WebhookVerificationError extends Error {
  override name = 'WebhookVerificationError';
}
export class WebhookMissingHeaderError extends WebhookVerificationError {
  override name = 'WebhookMissingHeaderError';
}
/** A header is present but not of the expected form (e.g. a timestamp that is not an integer). */
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

/** Headers as a Fetch `Headers`, or a Node `IncomingHttpHeaders`-like record (any letter case). */
export type WebhookHeaderSource = Headers | Record<string, string | string[] | undefined>;

/** What a delivery's headers claim: who signed what, when, and the `v1` signatures offered. */
export interface SignedDelivery {
  id: string;
  /** Unix seconds. */
  timestamp: number;
  signatures: Uint8Array<ArrayBuffer>[];
}

/** The text the HMAC covers before the raw body's bytes. */
export function signedPrefix(id: string, timestamp: number): string {
  return `${id}.${timestamp}.`;
}

/** The headers of one signed delivery, under both names; `signature` is the HMAC in base64. */
export function signatureHeaders(id: string, timestamp: number, signature: string): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const name of WEBHOOK_HEADER_NAMES.id) headers[name] = id;
  for (const name of WEBHOOK_HEADER_NAMES.timestamp) headers[name] = String(timestamp);
  for (const name of WEBHOOK_HEADER_NAMES.signature) headers[name] = `v1,${signature}`;
  return headers;
}

/** The HMAC key of a secret: the base64 after `whsec_` (a secret without the prefix is read the same way). */
export function webhookSecretKey(secret: string): Uint8Array<ArrayBuffer> {
  const key = base64ToBytes(secret.startsWith(WEBHOOK_SECRET_PREFIX) ? secret.slice(WEBHOOK_SECRET_PREFIX.length) : secret);
  if (!key || key.length < MIN_SECRET_BYTES)
    throw new TypeError(`A webhook secret is "${WEBHOOK_SECRET_PREFIX}" followed by base64 of at least ${MIN_SECRET_BYTES} bytes`);
  return key;
}

/**
 * Reads a delivery's headers and checks its timestamp is within `toleranceSeconds` of `nowSeconds`,
 * either way; throws the WebhookVerificationError naming what is wrong. The caller then checks that
 * one of `signatures` is the HMAC of the signed prefix and the body under one of its secrets.
 */
export function readSignedDelivery(
  headers: WebhookHeaderSource,
  nowSeconds: number,
  toleranceSeconds = DEFAULT_TOLERANCE_SECONDS,
): SignedDelivery {
  const id = headerValue(headers, WEBHOOK_HEADER_NAMES.id);
  const timestampText = headerValue(headers, WEBHOOK_HEADER_NAMES.timestamp);
  const signatures = headerValue(headers, WEBHOOK_HEADER_NAMES.signature);
  const missing = [
    id === undefined && 'webhook-id',
    timestampText === undefined && 'webhook-timestamp',
    signatures === undefined && 'webhook-signature',
  ];
  const named = missing.filter(Boolean);
  if (named.length) throw new WebhookMissingHeaderError(`Missing header: ${named.join(', ')} (or its x-service-* twin)`);
  if (!/^\d{1,12}$/.test(timestampText!)) throw new WebhookInvalidHeaderError('webhook-timestamp must be Unix seconds');

  const timestamp = Number(timestampText);
  if (nowSeconds - timestamp > toleranceSeconds)
    throw new WebhookTimestampTooOldError(`The timestamp is ${nowSeconds - timestamp} s old (at most ${toleranceSeconds})`);
  if (timestamp - nowSeconds > toleranceSeconds)
    throw new WebhookTimestampInFutureError(`The timestamp is ${timestamp - nowSeconds} s ahead (at most ${toleranceSeconds})`);
  const offered = signatures!
    .split(' ')
    .filter((entry) => entry.startsWith('v1,'))
    .map((entry) => base64ToBytes(entry.slice(3)))
    .filter((bytes): bytes is Uint8Array<ArrayBuffer> => bytes !== undefined);
  return { id: id!, timestamp, signatures: offered };
}

function headerValue(headers: WebhookHeaderSource, names: readonly string[]): string | undefined {
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
