// The deploy editor's error locations: a server error's JSON pointer (or a syntax error's stated
// line and column) to the line and column of the text the person typed.
import { expect, test } from 'vitest';
import { locateErrors } from '../../dashboard/src/deploy/locate-errors.ts';

const TEXT = [
  '{',
  '  // a comment',
  '  "name": "helper",',
  '  "model": { "providerId": "nope", "modelId": "m" },',
  '  "skills": ["a", "b"],',
  '}',
].join('\n');

test('a pointer to a property is located at its key; into an array, at the item', () => {
  const [providerId, skill] = locateErrors(TEXT, [
    { path: '/model/providerId', message: 'unknown provider' },
    { path: '/skills/1', message: 'not a skill' },
  ]);
  expect(providerId).toMatchObject({ line: 4, column: 14 });
  expect(skill).toMatchObject({ line: 5, column: 19 });
});

test('a pointer past what the text holds falls back to the nearest ancestor; a pointer with ~ escapes is decoded', () => {
  const [missing, escaped] = locateErrors(TEXT, [
    { path: '/model/temperature', message: 'x' },
    { path: '/name~1x', message: 'y' },
  ]);
  expect(missing).toMatchObject({ line: 4, column: 3 });
  expect(escaped).toMatchObject({ line: 1, column: 1 });
});

test("a syntax error's stated line and column are kept, with the offset they name", () => {
  const [located] = locateErrors(TEXT, [{ path: '', message: "line 3, column 4: expected ','" }]);
  expect(located).toMatchObject({ line: 3, column: 4 });
  expect(TEXT.slice(located!.offset!, located!.offset! + 4)).toBe('name');
});

test('lines ending in \\r\\n or a lone \\r count as \\n does, for pointers and stated positions alike', () => {
  for (const newline of ['\r\n', '\r']) {
    const text = TEXT.replaceAll('\n', newline);
    const [providerId, stated] = locateErrors(text, [
      { path: '/model/providerId', message: 'unknown provider' },
      { path: '', message: "line 3, column 4: expected ','" },
    ]);
    expect(providerId).toMatchObject({ line: 4, column: 14 });
    expect(text.slice(providerId!.offset!, providerId!.offset! + 12)).toBe('"providerId"');
    expect(text.slice(stated!.offset!, stated!.offset! + 4)).toBe('name');
  }
});
