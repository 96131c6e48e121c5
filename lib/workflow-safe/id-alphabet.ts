// The alphabet of every id, apart from lib/ids.ts so that workflow code (which may not import
// node:crypto) can make ids of the same form from its deterministic randomness.

/** Crockford base32, lower case: no i, l, o or u to misread. */
export const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

/** 26 id characters (130 bits) from hex digits, 5 bits per character; pads with zero bits. */
export function idCharsFromHex(hex: string): string {
  let bits = '';
  for (const digit of hex) bits += parseInt(digit, 16).toString(2).padStart(4, '0');
  bits = bits.padEnd(130, '0');
  let out = '';
  for (let i = 0; i < 26; i++) out += ALPHABET[parseInt(bits.slice(i * 5, i * 5 + 5), 2)];
  return out;
}
