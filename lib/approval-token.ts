// Signed approval tokens: `<approvalId>.<signature>`, the signature an HMAC-SHA256 of the id under a
// key derived from the master key for this one purpose, cut to 100 bits and written in the id
// alphabet (lower case, so an email address that a mail system lowercases still verifies). A token
// names one approval and grants answering it, nothing else; forging one means guessing 100 bits.
import { hmacSha256, safeEqual } from './crypto.ts';
import { ALPHABET, isId } from './ids.ts';
import type { MasterKey } from './master-key.ts';

const PURPOSE = 'approval-links';
const SIGNATURE_CHARS = 20;

function sign(key: Buffer, approvalId: string, seat: number | null = null): string {
  // A seat's link signs its seat too: it answers as that approver, and as no other.
  const digest = hmacSha256(key, seat === null ? `approval:${approvalId}` : `approval:${approvalId}:seat:${seat}`);
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
 * The token of one approver's links (an approval a team answers): `<approvalId>.s<seat>.<signature>`.
 * Forwarded, it still answers as that approver, once.
 */
export function seatToken(masterKey: MasterKey, approvalId: string, seat: number): string {
  return `${approvalId}.s${seat}.${sign(masterKey.derive(PURPOSE), approvalId, seat)}`;
}

/**
 * The approval a token names, with the seat its links answer as (null: the approval's own token, its
 * user's), or undefined when it is malformed or not signed by any of `keys` (the current master key
 * first, then previous ones, so links survive a key rotation).
 */
export function verifyApprovalLink(keys: readonly MasterKey[], token: string): { approvalId: string; seat: number | null } | undefined {
  const normalized = token.trim().toLowerCase();
  if (normalized.length > 80) return undefined;
  const parts = normalized.split('.');
  const [approvalId, middle, last] = parts;
  const seatPart = parts.length === 3 ? /^s(0|[1-9]\d{0,2})$/.exec(middle!) : null;
  if ((parts.length !== 2 && !seatPart) || !isId('apr', approvalId!)) return undefined;
  const seat = seatPart ? Number(seatPart[1]) : null;
  const signature = (parts.length === 3 ? last : middle)!;
  if (signature.length !== SIGNATURE_CHARS) return undefined;
  return keys.some((key) => safeEqual(sign(key.derive(PURPOSE), approvalId!, seat), signature))
    ? { approvalId: approvalId!, seat }
    : undefined;
}

/** The approval a token names (either kind), or undefined (verifyApprovalLink). */
export function verifyApprovalToken(keys: readonly MasterKey[], token: string): string | undefined {
  return verifyApprovalLink(keys, token)?.approvalId;
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
