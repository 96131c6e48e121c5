// Measured figures live in docs/benchmarks.md with the date they were measured, not in code comments,
// where they go stale without anyone noticing. A comment may keep its reason in words and point to the
// page. This test reads every code comment in the source folders and fails on one that carries a
// dated measurement; limits, defaults and constants ("a 5 s limit") are not measurements and pass.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, test } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const FOLDERS = [
  'lib',
  'api',
  'activities',
  'workflows',
  'core',
  'contract',
  'store',
  'workers',
  'dev',
  'bench',
  'soak',
  'test',
  'sdk/src',
  'cli/src',
  'dashboard/src',
];
const CODE = /\.(ts|tsx|js|mjs|cjs)$/;

// A figure: a number with a unit of time, size or CPU.
const FIGURE = String.raw`\d+(?:[.,]\d+)?\s?(?:µs|us|ms|s|KB|MB|KiB|MiB|GiB)\b`;
const MEASUREMENT_PATTERNS: readonly RegExp[] = [
  // "measured on 2026-11-23", "measured on 2 cores", "measured on this machine"
  /\bmeasured on (?:\d{4}-\d{2}-\d{2}|\d+ cores?|this (?:\d+-core )?machine)/i,
  // "profiled: 0.79 -> 0.35 s", "measured 14 ms → 9 ms": a before and after
  new RegExp(String.raw`\b(?:measured|profiled|benchmarked)\b[^.]*\d+(?:\.\d+)?\s?(?:${FIGURE})?\s*(?:->|→)\s*\d`, 'i'),
  // "p50 went from 150 to 35–45 ms"
  /\bp(?:50|90|95|99)\b[^.]*\bfrom \d+(?:\.\d+)? (?:ms |s )?to \d/i,
  // "the wait measured about 2 ms"
  new RegExp(String.raw`\bmeasured (?:about|around|roughly|only) ${FIGURE}`, 'i'),
];

/** Consecutive comment lines joined into one text, so that a sentence wrapped over lines is read whole. */
function commentBlocks(source: string): { line: number; text: string }[] {
  const blocks: { line: number; text: string }[] = [];
  let current: { line: number; parts: string[] } | undefined;
  source.split('\n').forEach((raw, index) => {
    const match = /^\s*(?:\/\/+|\/\*+|\*(?!\/))\s?(.*)$/.exec(raw);
    if (match) {
      current ??= { line: index + 1, parts: [] };
      current.parts.push(match[1] ?? '');
      return;
    }
    if (current) blocks.push({ line: current.line, text: current.parts.join(' ') });
    current = undefined;
  });
  if (current) blocks.push({ line: current.line, text: current.parts.join(' ') });
  return blocks;
}

function carriesMeasurement(comment: string): boolean {
  return MEASUREMENT_PATTERNS.some((pattern) => pattern.test(comment));
}

function codeFiles(folder: string): string[] {
  const path = join(ROOT, folder);
  let entries: string[];
  try {
    entries = readdirSync(path);
  } catch {
    return [];
  }
  return entries.flatMap((name) => {
    if (name === 'node_modules' || name === 'dist' || name === 'fixtures') return [];
    const child = join(path, name);
    if (statSync(child).isDirectory()) return codeFiles(relative(ROOT, child));
    return CODE.test(name) ? [child] : [];
  });
}

describe('measured figures stay out of code comments', () => {
  test('comments that carried dated measurements are caught', () => {
    const old = [
      `// web-stream stages, callbacks, result promises) that our loop does not use: measured on this
// machine, 50 streams of 200 tokens cost 330 µs of CPU per token through \`streamText\` and 67 µs`,
      ` * What \`start-dev\` runs with besides its defaults, measured on 2 cores (README, "Temporal dev server`,
      ` * task): that was almost all of its 150 ms. At 100 reads a second the wait measured about 2 ms: the
 * one-activity workflow's p50 went from 150 to 35–45 ms, a turn's (bench turn-latency) from 249 to`,
      ` * time at 50 concurrent streams (profiled: 0.79 -> 0.35 s of CPU in an 8 s window), for at most`,
      `// Measured on 2026-11-25: 163 ms synchronous, 135 ms asynchronous.`,
    ];
    for (const source of old) {
      const text = commentBlocks(source)[0]?.text ?? '';
      expect(carriesMeasurement(text), source).toBe(true);
    }
  });

  test('limits, defaults, constants and clocks are not measurements', () => {
    const fine = [
      '// The model step heartbeats within its 5 s limit; the default timeout is 30 s.',
      '/** Published input windows, in tokens, keyed as the price table is (model-key.ts). Checked on 2025-11-01. */',
      '// Remove it once no session run started before the deprecation (2026-11-25) can be open.',
      "// A turn's age is measured by the database's clock from its turn.started event.",
      '   * message from there on reports was measured on a request that already had the summary.',
      '// Waits measured in days, run in seconds.',
      '// a benchmark that silently measured 401s or 429s would report a fast, meaningless number.',
      "// the Temporal server's clock; both run on this machine.",
      '// machine (every test file at once on 2 cores) a first answer may come without them.',
    ];
    for (const source of fine) {
      const text = commentBlocks(source)[0]?.text ?? '';
      expect(carriesMeasurement(text), source).toBe(false);
    }
  });

  test('no code comment carries a measured figure', () => {
    const found: string[] = [];
    for (const file of FOLDERS.flatMap(codeFiles)) {
      if (file.endsWith('measurement-comments.test.ts')) continue;
      for (const block of commentBlocks(readFileSync(file, 'utf8'))) {
        if (carriesMeasurement(block.text)) found.push(`${relative(ROOT, file)}:${block.line}: ${block.text.slice(0, 160)}`);
      }
    }
    // Move the figure with its date to docs/benchmarks.md, "Figures behind choices in the code".
    expect(found).toEqual([]);
  });
});
