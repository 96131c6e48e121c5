// The docs stay walkable: every relative link in README.md and docs/ leads to a file or folder that
// exists, and every `npm run <script>` they name is a script of the root package.json or of one of its
// workspaces. The checks are plain functions, first shown to catch mistakes in small inline pages, then
// run on the real ones; each problem names its file and line.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Relative links of a Markdown page whose target is missing, as `file:line target`. */
function brokenLinks(file: string, text: string, exists: (absolute: string) => boolean): string[] {
  const problems: string[] = [];
  let fenced = false;
  text.split('\n').forEach((line, index) => {
    if (/^\s*```/.test(line)) fenced = !fenced;
    if (fenced) return;
    for (const match of line.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      const target = match[1]!;
      if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('#')) continue;
      const pathPart = decodeURIComponent(target.split('#')[0]!);
      if (!exists(path.resolve(path.dirname(file), pathPart))) problems.push(`${path.relative(ROOT, file)}:${index + 1} ${target}`);
    }
  });
  return problems;
}

/** `npm run <name>` mentions whose script no package.json of the repository has. */
function unknownScripts(file: string, text: string, scripts: ReadonlySet<string>): string[] {
  const problems: string[] = [];
  text.split('\n').forEach((line, index) => {
    for (const match of line.matchAll(/\bnpm run(?:\s+-s)?\s+([a-z][\w:.-]*)/g)) {
      if (!scripts.has(match[1]!)) problems.push(`${path.relative(ROOT, file)}:${index + 1} npm run ${match[1]}`);
    }
  });
  return problems;
}

function pages(): string[] {
  const docs = path.join(ROOT, 'docs');
  return [
    path.join(ROOT, 'README.md'),
    ...fs
      .readdirSync(docs, { recursive: true, encoding: 'utf8' })
      .filter((name) => name.endsWith('.md'))
      .map((name) => path.join(docs, name)),
  ];
}

function allScripts(): Set<string> {
  const root = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: object; workspaces?: string[] };
  const names = new Set(Object.keys(root.scripts));
  for (const workspace of root.workspaces ?? []) {
    const file = path.join(ROOT, workspace, 'package.json');
    if (fs.existsSync(file))
      for (const name of Object.keys((JSON.parse(fs.readFileSync(file, 'utf8')) as { scripts?: object }).scripts ?? {})) names.add(name);
  }
  return names;
}

describe('the checks', () => {
  it('find a link to a missing page, and pass links that resolve, anchors, URLs and code blocks', () => {
    const page = path.join(ROOT, 'docs/x.md');
    const have = new Set([path.join(ROOT, 'docs/y.md'), path.join(ROOT, 'README.md')]);
    const text = [
      'See [y](y.md#part), [home](../README.md), [web](https://example.com) and [top](#intro).',
      'Then [gone](z.md).',
      '```',
      '[not a link](nowhere.md)',
      '```',
    ].join('\n');
    expect(brokenLinks(page, text, (file) => have.has(file))).toEqual(['docs/x.md:2 z.md']);
  });

  it('find an npm script nobody defines', () => {
    const text = 'Run `npm run -s bench turn-latency`, then `npm run benhc`.';
    expect(unknownScripts(path.join(ROOT, 'README.md'), text, new Set(['bench']))).toEqual(['README.md:1 npm run benhc']);
  });
});

describe('README.md and docs/', () => {
  const scripts = allScripts();
  it.each(pages().map((file) => [path.relative(ROOT, file), file]))(
    '%s: every relative link resolves and every npm script exists',
    (_name, file) => {
      const text = fs.readFileSync(file, 'utf8');
      expect([...brokenLinks(file, text, (target) => fs.existsSync(target)), ...unknownScripts(file, text, scripts)]).toEqual([]);
    },
  );
});
