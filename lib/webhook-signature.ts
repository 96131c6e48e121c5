// Webhook signatures in the Standard Webhooks layout, so any of its libraries verifies our deliveries.
// What is signed, under which headers, and how a delivery's headers are read and its timestamp
// checked are the contract's (contract/webhook-signing.ts: the SDK verifies by the same rules); this
// file adds the HMAC on node:crypto and the secrets the service generates.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import {
  WEBHOOK_HEADER_NAMES,
  WEBHOOK_SECRET_PREFIX,
  WebhookSignatureMismatchError,
  readSignedDelivery,
  signatureHeaders,
  signedPrefix,
  webhookSecretKey,
  type WebhookHeaderSource,
} from '../contract/webhook-signing.ts';

export {
  DEFAULT_TOLERANCE_SECONDS,
  WebhookInvalidHeaderError,
  WebhookMissingHeaderError,
  WebhookSignatureMismatchError,
  WebhookTimestampInFutureError,
  WebhookTimestampTooOldError,
  WebhookVerificationError,
} from '../contract/webhook-signing.ts';

export const SECRET_PREFIX = WEBHOOK_SECRET_PREFIX;
export const HEADER_NAMES = WEBHOOK_HEADER_NAMES;
export type HeaderSource = WebhookHeaderSource;

/** A new signing secret: `whsec_` + base64 of 32 random bytes. */
export function generateWebhookSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64');
}

/** The HMAC-SHA256 of the signed prefix and the body. */
function mac(secret: string, id: string, timestamp: number, body: string | Buffer): Buffer {
  return createHmac('sha256', webhookSecretKey(secret)).update(signedPrefix(id, timestamp)).update(body).digest();
}

export function signature(secret: string, id: string, timestamp: number, body: string | Buffer): string {
  return `v1,${mac(secret, id, timestamp, body).toString('base64')}`;
}

/** Every header of one signed delivery, under both names. `timestamp` is Unix seconds. */
export function signWebhook(secret: string, id: string, timestamp: number, body: string | Buffer): Record<string, string> {
  return signatureHeaders(id, timestamp, mac(secret, id, timestamp, body).toString('base64'));
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
  const now = options.now ?? Math.floor(Date.now() / 1000);
  const { id, timestamp, signatures } = readSignedDelivery(options.headers, now, options.toleranceSeconds);
  const secrets = typeof options.secret === 'string' ? [options.secret] : options.secret;
  for (const secret of secrets) {
    const expected = mac(secret, id, timestamp, options.body);
    // Compare against every offered signature, without stopping early on the first hit.
    let matched = false;
    for (const candidate of signatures) {
      if (candidate.length === expected.length && timingSafeEqual(candidate, expected)) matched = true;
    }
    if (matched) return { id, timestamp };
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
