// The line diff behind "Compare revisions": every line of both texts once, in order, with the
// fewest lines marked removed or added.
import { expect, test } from 'vitest';
import { lineDiff } from '../../dashboard/src/agents/line-diff.ts';

const render = (before: string, after: string) =>
  lineDiff(before, after)!.map((line) => `${{ same: ' ', removed: '-', added: '+' }[line.kind]}${line.text}`);

test('a changed line in the middle is one removal and one addition between what is kept', () => {
  expect(render('a\nb\nc\nd', 'a\nb\nX\nd')).toEqual([' a', ' b', '-c', '+X', ' d']);
});

test('insertions and deletions anywhere, and identical or empty texts', () => {
  expect(render('a\nc\ne', 'a\nb\nc\ne\nf')).toEqual([' a', '+b', ' c', ' e', '+f']);
  expect(render('x\na\nb', 'a\nb')).toEqual(['-x', ' a', ' b']);
  expect(render('same\ntext', 'same\ntext')).toEqual([' same', ' text']);
  expect(render('', 'new')).toEqual(['-', '+new']);
});

test('both texts can be read back from the diff', () => {
  const before = Array.from({ length: 50 }, (_, index) => `line ${index % 7}`).join('\n');
  const after = Array.from({ length: 60 }, (_, index) => `line ${index % 5}`).join('\n');
  const diff = lineDiff(before, after)!;
  expect(diff.filter((line) => line.kind !== 'added').map((line) => line.text)).toEqual(before.split('\n'));
  expect(diff.filter((line) => line.kind !== 'removed').map((line) => line.text)).toEqual(after.split('\n'));
});

test('texts too large to compare give no diff rather than a frozen page', () => {
  const huge = (seed: number) => Array.from({ length: 2100 }, (_, index) => `${seed}-${index}`).join('\n');
  expect(lineDiff(huge(1), huge(2))).toBeUndefined();
});
