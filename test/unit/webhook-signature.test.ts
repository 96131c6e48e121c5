// The signing and verification helper, checked against the Standard Webhooks reference library
// (`standardwebhooks`, an independent implementation) in both directions.
import { describe, expect, test } from 'vitest';
import { Webhook } from 'standardwebhooks';
import {
  generateWebhookSecret,
  signWebhook,
  verifyWebhook,
  verifyWebhookSignature,
  WebhookInvalidHeaderError,
  WebhookMissingHeaderError,
  WebhookSignatureMismatchError,
  WebhookTimestampInFutureError,
  WebhookTimestampTooOldError,
  WebhookVerificationError,
} from '../../lib/webhook-signature.ts';

const secret = generateWebhookSecret();
const id = 'dlv_test';
const now = 1_767_225_600;
const body = JSON.stringify({ id, type: 'session.completed', createdAt: '2026-01-01T00:00:00.000Z', data: { sessionId: 'ses_1' } });

describe('secrets', () => {
  test('are whsec_ + base64 of 32 random bytes, never twice the same', () => {
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(32);
    expect(generateWebhookSecret()).not.toBe(secret);
  });
});

describe('signing', () => {
  test('sends the same values under the x-service-* and webhook-* names', () => {
    const headers = signWebhook(secret, id, now, body);
    expect(headers['x-service-id']).toBe(id);
    expect(headers['webhook-id']).toBe(id);
    expect(headers['x-service-timestamp']).toBe(String(now));
    expect(headers['webhook-timestamp']).toBe(String(now));
    expect(headers['x-service-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(headers['webhook-signature']).toBe(headers['x-service-signature']);
  });

  test('matches the reference library, which verifies it', () => {
    const reference = new Webhook(secret);
    expect(signWebhook(secret, id, now, body)['webhook-signature']).toBe(reference.sign(id, new Date(now * 1000), body));
    const fresh = Math.floor(Date.now() / 1000);
    expect(reference.verify(body, signWebhook(secret, id, fresh, body))).toEqual(JSON.parse(body));
  });

  test('verifies what the reference library signs', () => {
    const headers = {
      'webhook-id': id,
      'webhook-timestamp': String(now),
      'webhook-signature': new Webhook(secret).sign(id, new Date(now * 1000), body),
    };
    expect(verifyWebhook({ body, headers, secret, now })).toEqual(JSON.parse(body));
  });
});

describe('verification', () => {
  const signed = (at = now, key = secret) => signWebhook(key, id, at, body);

  test('accepts a body as a string or as bytes, with Headers or a plain record, at the tolerance edge', () => {
    expect(verifyWebhookSignature({ body, headers: signed(), secret, now })).toEqual({ id, timestamp: now });
    expect(verifyWebhookSignature({ body: Buffer.from(body), headers: new Headers(signed()), secret, now: now + 300 })).toEqual({
      id,
      timestamp: now,
    });
    expect(verifyWebhookSignature({ body, headers: signed(now + 300), secret, now })).toEqual({ id, timestamp: now + 300 });
  });

  test('reads the x-service-* names alone, in any letter case', () => {
    const only = Object.fromEntries(
      Object.entries(signed())
        .filter(([name]) => name.startsWith('x-service-'))
        .map(([name, value]) => [name.toUpperCase(), value]),
    );
    expect(verifyWebhookSignature({ body, headers: only, secret, now }).id).toBe(id);
  });

  test('rejects a timestamp 301 s old or 301 s ahead', () => {
    expect(() => verifyWebhookSignature({ body, headers: signed(now - 301), secret, now })).toThrow(WebhookTimestampTooOldError);
    expect(() => verifyWebhookSignature({ body, headers: signed(now + 301), secret, now })).toThrow(WebhookTimestampInFutureError);
    expect(() => verifyWebhookSignature({ body, headers: signed(now - 60), secret, now, toleranceSeconds: 30 })).toThrow(
      WebhookTimestampTooOldError,
    );
  });

  test('rejects a body with one flipped bit, and a flipped bit in the signature', () => {
    const flipped = Buffer.from(body);
    flipped[10] = flipped[10]! ^ 0x01;
    expect(() => verifyWebhookSignature({ body: flipped, headers: signed(), secret, now })).toThrow(WebhookSignatureMismatchError);
    const headers = signed();
    const mac = Buffer.from(headers['webhook-signature']!.slice(3), 'base64');
    mac[0] = mac[0]! ^ 0x80;
    expect(() =>
      verifyWebhookSignature({ body, headers: { ...headers, 'webhook-signature': `v1,${mac.toString('base64')}` }, secret, now }),
    ).toThrow(WebhookSignatureMismatchError);
  });

  test('rejects a wrong secret, a changed id and a changed timestamp', () => {
    expect(() => verifyWebhookSignature({ body, headers: signed(), secret: generateWebhookSecret(), now })).toThrow(
      WebhookSignatureMismatchError,
    );
    expect(() => verifyWebhookSignature({ body, headers: { ...signed(), 'webhook-id': 'dlv_other' }, secret, now })).toThrow(
      WebhookSignatureMismatchError,
    );
    expect(() => verifyWebhookSignature({ body, headers: { ...signed(), 'webhook-timestamp': String(now + 1) }, secret, now })).toThrow(
      WebhookSignatureMismatchError,
    );
  });

  test('accepts a rotated pair: either secret, and a header carrying both signatures', () => {
    const previous = generateWebhookSecret();
    const next = generateWebhookSecret();
    expect(verifyWebhookSignature({ body, headers: signed(now, previous), secret: [next, previous], now }).id).toBe(id);
    expect(verifyWebhookSignature({ body, headers: signed(now, next), secret: [next, previous], now }).id).toBe(id);
    const both = `${signed(now, previous)['webhook-signature']} ${signed(now, next)['webhook-signature']}`;
    expect(verifyWebhookSignature({ body, headers: { ...signed(), 'webhook-signature': both }, secret: next, now }).id).toBe(id);
    expect(() => verifyWebhookSignature({ body, headers: signed(now, previous), secret: [next], now })).toThrow(
      WebhookSignatureMismatchError,
    );
  });

  test('ignores signature versions it does not know', () => {
    const headers = { ...signed(), 'webhook-signature': `v2,${signed()['webhook-signature']!.slice(3)}` };
    expect(() => verifyWebhookSignature({ body, headers, secret, now })).toThrow(WebhookSignatureMismatchError);
  });

  test('names a missing or malformed header; every error is a WebhookVerificationError', () => {
    const { 'webhook-signature': _a, 'x-service-signature': _b, ...unsigned } = signed();
    expect(() => verifyWebhookSignature({ body, headers: unsigned, secret, now })).toThrow(/webhook-signature/);
    expect(() => verifyWebhookSignature({ body, headers: unsigned, secret, now })).toThrow(WebhookMissingHeaderError);
    expect(() => verifyWebhookSignature({ body, headers: {}, secret, now })).toThrow(WebhookVerificationError);
    const malformed = { ...signed(), 'webhook-timestamp': '2026-01-01', 'x-service-timestamp': '2026-01-01' };
    expect(() => verifyWebhookSignature({ body, headers: malformed, secret, now })).toThrow(WebhookInvalidHeaderError);
  });
});
