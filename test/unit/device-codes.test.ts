// The user code of a device login is typed by a person: drawn from consonants only, shown as
// ABCD-EFGH, and read back whatever the case and with or without the dash.
import { expect, test } from 'vitest';
import { displayUserCode, newDeviceCode, newUserCode, normaliseUserCode } from '../../api/device/codes.ts';

test('a new user code is eight consonants, shown with a dash in the middle', () => {
  for (let i = 0; i < 200; i++) {
    const code = newUserCode();
    expect(code).toMatch(/^[BCDFGHJKLMNPQRSTVWXZ]{8}$/);
    expect(displayUserCode(code)).toBe(`${code.slice(0, 4)}-${code.slice(4)}`);
  }
});

test('what a person types is read in any case, with or without the dash', () => {
  expect(normaliseUserCode('BCDF-GHJK')).toBe('BCDFGHJK');
  expect(normaliseUserCode('bcdf-ghjk')).toBe('BCDFGHJK');
  expect(normaliseUserCode(' bcdfGHJK ')).toBe('BCDFGHJK');
});

test('anything that cannot be a user code is refused', () => {
  for (const typed of ['', 'BCDF-GHJ', 'BCDF-GHJKL', 'ABCD-EFGH', 'BCDF GHJK', 'BCDF-GHJ1'])
    expect(normaliseUserCode(typed)).toBeUndefined();
});

test('device codes are long and never repeat', () => {
  const codes = new Set(Array.from({ length: 100 }, () => newDeviceCode()));
  expect(codes.size).toBe(100);
  for (const code of codes) expect(code.length).toBeGreaterThanOrEqual(50);
});
