// A line diff of two texts (two revisions' bundles): the longest common subsequence of their lines,
// then each line kept, removed or added, in order. Quadratic, so bounded: bundles are at most 1 MiB
// and a diff past the bound says so instead of freezing the page.

export type DiffLine = { kind: 'same' | 'removed' | 'added'; text: string };

/** Cells of the LCS table beyond which no diff is computed (about 16 MB of Uint32). */
const MAX_CELLS = 4_000_000;

export function lineDiff(before: string, after: string): DiffLine[] | undefined {
  const a = before.split('\n');
  const b = after.split('\n');
  // Common head and tail lines need no table: most revisions change a few lines in the middle.
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const midA = a.slice(head, a.length - tail);
  const midB = b.slice(head, b.length - tail);
  if ((midA.length + 1) * (midB.length + 1) > MAX_CELLS) return undefined;

  // lengths[i][j]: the LCS length of midA[i..] and midB[j..], row-major in one array.
  const width = midB.length + 1;
  const lengths = new Uint32Array((midA.length + 1) * width);
  for (let i = midA.length - 1; i >= 0; i--) {
    for (let j = midB.length - 1; j >= 0; j--) {
      lengths[i * width + j] =
        midA[i] === midB[j] ? lengths[(i + 1) * width + j + 1]! + 1 : Math.max(lengths[(i + 1) * width + j]!, lengths[i * width + j + 1]!);
    }
  }
  const middle: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < midA.length && j < midB.length) {
    if (midA[i] === midB[j]) {
      middle.push({ kind: 'same', text: midA[i]! });
      i++;
      j++;
    } else if (lengths[(i + 1) * width + j]! >= lengths[i * width + j + 1]!) {
      middle.push({ kind: 'removed', text: midA[i++]! });
    } else {
      middle.push({ kind: 'added', text: midB[j++]! });
    }
  }
  while (i < midA.length) middle.push({ kind: 'removed', text: midA[i++]! });
  while (j < midB.length) middle.push({ kind: 'added', text: midB[j++]! });
  const same = (text: string): DiffLine => ({ kind: 'same', text });
  return [...a.slice(0, head).map(same), ...middle, ...b.slice(b.length - tail).map(same)];
}
