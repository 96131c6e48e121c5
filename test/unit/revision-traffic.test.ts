// The draw of a new session's revision: the shares of other revisions in order, the live one for the rest.
import { expect, test } from 'vitest';
import { pickRevision } from '../../lib/revision-traffic.ts';

test('each share takes its slice of the draw, in revision order, and the live revision the rest', () => {
  const serving = { revision: 4, traffic: { '7': 10, '5': 25 } };
  expect(pickRevision(serving, 0)).toBe(5);
  expect(pickRevision(serving, 0.2499)).toBe(5);
  expect(pickRevision(serving, 0.25)).toBe(7);
  expect(pickRevision(serving, 0.3499)).toBe(7);
  expect(pickRevision(serving, 0.35)).toBe(4);
  expect(pickRevision(serving, 0.9999)).toBe(4);
});

test('no shares, or 0%, is always the live revision; 100% is never the live one', () => {
  expect(pickRevision({ revision: 2, traffic: {} }, 0)).toBe(2);
  expect(pickRevision({ revision: 2, traffic: { '3': 0 } }, 0)).toBe(2);
  expect(pickRevision({ revision: 2, traffic: { '3': 100 } }, 0.9999)).toBe(3);
});
