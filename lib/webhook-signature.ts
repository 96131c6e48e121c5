// Webhook signatures in the Standard Webhooks layout (https://www.standardwebhooks.com), so any of
// its libraries verifies our deliveries: HMAC-SHA256 over "<id>.<timestamp>.<raw body>", keyed with
// the base64 part of a `whsec_` secret, sent as `v1,<base64>`. The same values go out under the
// service's own names (x-service-*) and the standard ones (webhook-*). This file depends on
// node:crypto only, so the SDK can carry it as it is.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export const SECRET_PREFIX = 'whsec_';
export const DEFAULT_TOLERANCE_SECONDS = 300;

export const HEADER_NAMES = {
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

/** A new signing secret: `whsec_` + base64 of 32 random bytes. */
export function generateWebhookSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64');
}

/** The HMAC key of a secret: the base64 after `whsec_` (a secret without the prefix is read the same way). */
function secretKey(secret: string): Buffer {
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  const key = Buffer.from(encoded, 'base64');
  if (key.length < 16) throw new TypeError('A webhook secret is "whsec_" followed by base64 of at least 16 bytes');
  return key;
}

export function signature(secret: string, id: string, timestamp: number, body: string | Buffer): string {
  const mac = createHmac('sha256', secretKey(secret)).update(`${id}.${timestamp}.`).update(body).digest('base64');
  return `v1,${mac}`;
}

/** Every header of one signed delivery, under both names. `timestamp` is Unix seconds. */
export function signWebhook(secret: string, id: string, timestamp: number, body: string | Buffer): Record<string, string> {
  const signed = signature(secret, id, timestamp, body);
  const headers: Record<string, string> = {};
  for (const name of HEADER_NAMES.id) headers[name] = id;
  for (const name of HEADER_NAMES.timestamp) headers[name] = String(timestamp);
  for (const name of HEADER_NAMES.signature) headers[name] = signed;
  return headers;
}

export type HeaderSource = Headers | Record<string, string | string[] | undefined>;

function header(headers: HeaderSource, names: readonly string[]): string | undefined {
  for (const name of names) {
    let value: string | string[] | null | undefined;
    if (typeof (headers as Headers).get === 'function') value = (headers as Headers).get(name);
    else {
      const record = headers as Record<string, string | string[] | undefined>;
      value = record[name] ?? Object.entries(record).find(([key]) => key.toLowerCase() === name)?.[1];
    }
    if (Array.isArray(value)) value = value.join(' ');
    if (value) return value;
  }
  return undefined;
}

export interface VerifyOptions {
  /** The raw body exactly as received: verify before any JSON parsing. */
  body: string | Buffer;
  headers: HeaderSource;
  /** One secret, or several while rotating (the new one and the old one). */
  secret: string | readonly string[];
  /** Largest accepted distance of the timestamp from now, either way (default 300 s). */
  toleranceSeconds?: number;
  /** For tests: the current time in Unix seconds. */
  now?: number;
}

export interface VerifiedWebhook {
  id: string;
  timestamp: number;
}

/** Verifies a delivery's signature or throws a WebhookVerificationError subclass naming why. */
export function verifyWebhookSignature(options: VerifyOptions): VerifiedWebhook {
  const id = header(options.headers, HEADER_NAMES.id);
  const timestampText = header(options.headers, HEADER_NAMES.timestamp);
  const signatures = header(options.headers, HEADER_NAMES.signature);
  const missing = [!id && 'webhook-id', !timestampText && 'webhook-timestamp', !signatures && 'webhook-signature'].filter(Boolean);
  if (missing.length) throw new WebhookMissingHeaderError(`Missing header: ${missing.join(', ')} (or its x-service-* twin)`);
  if (!/^\d{1,12}$/.test(timestampText!)) throw new WebhookInvalidHeaderError('webhook-timestamp must be Unix seconds');

  const timestamp = Number(timestampText);
  const now = options.now ?? Math.floor(Date.now() / 1000);
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  if (now - timestamp > tolerance)
    throw new WebhookTimestampTooOldError(`The timestamp is ${now - timestamp} s old (at most ${tolerance})`);
  if (timestamp - now > tolerance)
    throw new WebhookTimestampInFutureError(`The timestamp is ${timestamp - now} s ahead (at most ${tolerance})`);

  const offered = signatures!
    .split(' ')
    .filter((entry) => entry.startsWith('v1,'))
    .map((entry) => Buffer.from(entry.slice(3), 'base64'));
  const secrets = typeof options.secret === 'string' ? [options.secret] : options.secret;
  for (const secret of secrets) {
    const expected = Buffer.from(signature(secret, id!, timestamp, options.body).slice(3), 'base64');
    // Compare against every offered signature, without stopping early on the first hit.
    let matched = false;
    for (const candidate of offered) {
      if (candidate.length === expected.length && timingSafeEqual(candidate, expected)) matched = true;
    }
    if (matched) return { id: id!, timestamp };
  }
  throw new WebhookSignatureMismatchError('No signature matches the body and the secret');
}

/** Verifies, then parses the body: the delivered event `{id, type, createdAt, data}`. */
export function verifyWebhook<T = WebhookEvent>(options: VerifyOptions): T {
  verifyWebhookSignature(options);
  return JSON.parse(Buffer.isBuffer(options.body) ? options.body.toString('utf8') : options.body) as T;
}

export interface WebhookEvent<D = Record<string, unknown>> {
  id: string;
  type: string;
  createdAt: string;
  data: D;
}
