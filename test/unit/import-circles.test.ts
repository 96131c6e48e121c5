// No two files of the tree import each other, directly or round a loop (docs/development.md, "The layers"):
// a circle makes every file in it depend on all the others, so none can be read, tested or moved alone.
// Type-only imports count: they tie the files as much for a reader.
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { circles, importGraph, sourceFiles } from '../helpers/source/import-graph.ts';

describe('import circles', () => {
  test('the tree has none', () => {
    const root = path.resolve('.');
    const files = sourceFiles(root);
    // The reading itself works: the tree's files are found, and their imports are.
    expect(files.length).toBeGreaterThan(300);
    const graph = importGraph(root, files);
    expect(graph.get('workflows/session.ts')).toContain('workflows/session-messages.ts');
    expect(circles(graph)).toEqual([]);
  });

  test('a loop, of two files or round several, is found; a file imported twice is not one', () => {
    const graph = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['a.ts', 'c.ts']],
      ['c.ts', ['d.ts']],
      ['d.ts', ['e.ts']],
      ['e.ts', ['c.ts']],
      ['f.ts', ['c.ts', 'g.ts']],
      ['g.ts', ['c.ts']],
    ]);
    expect(circles(graph).sort()).toEqual([
      ['a.ts', 'b.ts'],
      ['c.ts', 'd.ts', 'e.ts'],
    ]);
  });
});
