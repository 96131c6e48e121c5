// The two codes of a device login. The user code is typed by a person: eight letters from an
// alphabet without vowels (no words spelled by chance) nor look-alikes, shown as ABCD-EFGH and read
// in any case, with or without the dash. At 20^8 (about 2^34.6) codes and the rate limits, guessing
// one in its ten minutes is hopeless. The device code is a secret of 256 bits, stored only hashed.
import { randomInt } from 'node:crypto';
import { randomToken } from '../../lib/ids.ts';

/** RFC 8628 §6.1's example alphabet: consonants only. */
const USER_CODE_ALPHABET = 'BCDFGHJKLMNPQRSTVWXZ';
const USER_CODE_LENGTH = 8;
const USER_CODE = new RegExp(`^[${USER_CODE_ALPHABET}]{${USER_CODE_LENGTH}}$`);

/** A new user code in its stored form (no dash). */
export function newUserCode(): string {
  let code = '';
  for (let i = 0; i < USER_CODE_LENGTH; i++) code += USER_CODE_ALPHABET[randomInt(USER_CODE_ALPHABET.length)];
  return code;
}

/** The stored form of what a person typed, or undefined when it cannot be a user code. */
export function normaliseUserCode(typed: string): string | undefined {
  const code = typed.trim().toUpperCase().replace(/-/g, '');
  return USER_CODE.test(code) ? code : undefined;
}

/** `ABCD-EFGH`, as people see it. */
export function displayUserCode(code: string): string {
  return `${code.slice(0, 4)}-${code.slice(4)}`;
}

export function newDeviceCode(): string {
  return `dc_${randomToken(256)}`;
}
