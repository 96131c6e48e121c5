// Signed approval tokens: `<approvalId>.<signature>`, the signature an HMAC-SHA256 of the id under a
// key derived from the master key for this one purpose, cut to 100 bits and written in the id
// alphabet (lower case, so an email address that a mail system lowercases still verifies). A token
// names one approval and grants answering it, nothing else; forging one means guessing 100 bits.
import { hmacSha256, safeEqual } from './crypto.ts';
import { ALPHABET, isId } from './ids.ts';
import type { MasterKey } from './master-key.ts';

const PURPOSE = 'approval-links';
const SIGNATURE_CHARS = 20;

function sign(key: Buffer, approvalId: string): string {
  const digest = hmacSha256(key, `approval:${approvalId}`);
  let out = '';
  // 5 bits per character from the digest's bit stream.
  for (let i = 0; i < SIGNATURE_CHARS; i++) {
    const bit = i * 5;
    const byte = bit >> 3;
    const word = (digest[byte]! << 8) | (digest[byte + 1] ?? 0);
    out += ALPHABET[(word >> (11 - (bit & 7))) & 31];
  }
  return out;
}

export function approvalToken(masterKey: MasterKey, approvalId: string): string {
  return `${approvalId}.${sign(masterKey.derive(PURPOSE), approvalId)}`;
}

/**
 * The approval a token names, or undefined when it is malformed or not signed by any of `keys`
 * (the current master key first, then previous ones, so links survive a key rotation).
 */
export function verifyApprovalToken(keys: readonly MasterKey[], token: string): string | undefined {
  const normalized = token.trim().toLowerCase();
  const dot = normalized.lastIndexOf('.');
  if (dot === -1 || normalized.length > 80) return undefined;
  const approvalId = normalized.slice(0, dot);
  const signature = normalized.slice(dot + 1);
  if (!isId('apr', approvalId) || signature.length !== SIGNATURE_CHARS) return undefined;
  return keys.some((key) => safeEqual(sign(key.derive(PURPOSE), approvalId), signature)) ? approvalId : undefined;
}

/** Links people follow: the answer page of an approval and one one-click link per option. */
export interface ApprovalLinks {
  /** The page showing the question and every option. */
  page: string;
  /** One link per option, in the options' order. */
  options: Array<{ option: string; url: string }>;
}

export function approvalLinks(baseUrl: string, token: string, options: readonly string[]): ApprovalLinks {
  const page = new URL(`approval/${encodeURIComponent(token)}/answer`, baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`).href;
  return { page, options: options.map((option) => ({ option, url: `${page}?choice=${encodeURIComponent(option)}` })) };
}
