// Hashing and signing helpers shared by keys, approvals and webhooks.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

export function sha256Hex(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

export function hmacSha256(key: Buffer | string, message: string): Buffer {
  return createHmac('sha256', key).update(message).digest();
}

/** Constant-time comparison of two strings of possibly different lengths. */
export function safeEqual(a: string, b: string): boolean {
  const left = createHash('sha256').update(a).digest();
  const right = createHash('sha256').update(b).digest();
  return timingSafeEqual(left, right) && a.length === b.length;
}
