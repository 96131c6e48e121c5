// The CLI's pure pieces: where a JSON pointer of the validator is in the bundle's text (a property at
// its key, a missing one at the nearest thing that is there), the caret under a tab-indented line,
// skills read from disk into the text, and the words of a custom command.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'jsonc-parser';
import { describe, expect, test } from 'vitest';
import { lineAndColumn, syntaxProblems } from '../../cli/src/deploy/locate.ts';
import { pointerOffset } from '../../contract/bundle-positions.ts';
import { inlineFilesFromDisk } from '../../cli/src/deploy/inline-files.ts';
import { parseCommandWords } from '../../cli/src/custom/parse-words.ts';
import { renderLocated } from '../../cli/src/deploy/render-errors.ts';

const TEXT = `{
  // comment
  "name": "helper",
  "skills": ["a", { "name": "b", "path": "b.md" }],
  "extra": { "deep": true },
}`;

function at(pointer: string): string {
  const { tree } = syntaxProblems(TEXT);
  const where = lineAndColumn(TEXT, pointerOffset(tree!, pointer));
  return `${where.line}:${where.column}`;
}

describe('locating a JSON pointer', () => {
  test('a property at its key, an item at its value, a missing one at its nearest ancestor', () => {
    expect(at('/name')).toBe('3:3');
    expect(at('/extra')).toBe('5:3');
    expect(at('/skills/1/path')).toBe('4:34');
    expect(at('/skills/0')).toBe('4:14');
    expect(at('/skills/1/missing')).toBe('4:19');
    expect(at('/model/modelId')).toBe('1:1');
    expect(at('')).toBe('1:1');
  });

  test('the caret sits under the spot even after tabs', () => {
    const text = '{\n\t"mcps": ["tiem"]\n}';
    const { tree } = syntaxProblems(text);
    const where = lineAndColumn(text, pointerOffset(tree!, '/mcps/0'));
    const rendered = renderLocated('service.jsonc', where, 'unknown').split('\n');
    expect(rendered[0]).toBe('service.jsonc:2:11  unknown');
    expect(rendered[2]!.indexOf('^') - rendered[2]!.indexOf('|') - 2).toBe(rendered[1]!.indexOf('"tiem"') - rendered[1]!.indexOf('|') - 2);
  });
});

describe('files from disk', () => {
  test('path skills and skill folders become workspaceFiles; existing entries and files outside the folder are left alone', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-inline-'));
    fs.mkdirSync(path.join(dir, 'skills/triage/refs'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'skills/triage/SKILL.md'), 'triage');
    fs.writeFileSync(path.join(dir, 'skills/triage/refs/codes.md'), 'codes');
    fs.writeFileSync(path.join(dir, 'kept.md'), 'from disk');
    const text = `{
      // my agent
      "name": "x",
      "skills": ["triage", "Be brief.", { "name": "k", "path": "kept.md" }, { "name": "o", "path": "../outside.md" }],
      "workspaceFiles": { "kept.md": "as written" },
    }`;
    const inlined = inlineFilesFromDisk(text, dir);
    expect(inlined.added).toEqual(['skills/triage/SKILL.md', 'skills/triage/refs/codes.md']);
    expect(inlined.text).toContain('// my agent');
    expect((parse(inlined.text, [], { allowTrailingComma: true }) as { workspaceFiles: unknown }).workspaceFiles).toEqual({
      'kept.md': 'as written',
      'skills/triage/SKILL.md': 'triage',
      'skills/triage/refs/codes.md': 'codes',
    });
  });
});

describe('the words of a custom command', () => {
  test('positionals, --flag value, --flag=value, a bare flag, and -- ending the flags', () => {
    expect(parseCommandWords(['pr-12', '--tone', 'kind', 'main', '--lang=fr', '--draft', '--', '--not-a-flag'])).toEqual({
      args: ['pr-12', 'main', '--not-a-flag'],
      flags: { tone: 'kind', lang: 'fr', draft: true },
      help: false,
    });
    expect(parseCommandWords(['--help']).help).toBe(true);
  });
});
