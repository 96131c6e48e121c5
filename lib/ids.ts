// Identifiers. Every id a stranger might see is random (not sequential), so knowing one id tells
// nothing about others; a short prefix says what kind of thing it names.
import { randomBytes } from 'node:crypto';
import { ALPHABET } from './workflow-safe/id-alphabet.ts';

export { ALPHABET };

/** `bits` of randomness as Crockford base32 (5 bits per character). */
export function randomToken(bits = 128): string {
  const chars = Math.ceil(bits / 5);
  const bytes = randomBytes(chars);
  let out = '';
  for (const byte of bytes) out += ALPHABET[byte & 31];
  return out;
}

export type IdKind = 'usr' | 'key' | 'agt' | 'ses' | 'msg' | 'apr' | 'whk' | 'dlv' | 'run' | 'trn' | 'oac' | 'oar' | 'evl' | 'pnc';

export function newId(kind: IdKind): string {
  return `${kind}_${randomToken(130)}`;
}

export function isId(kind: IdKind, value: string): boolean {
  return new RegExp(`^${kind}_[${ALPHABET}]{26}$`).test(value);
}
