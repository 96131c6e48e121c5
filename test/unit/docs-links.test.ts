// The docs stay walkable: every relative link in README.md and docs/ leads to a file or folder that
// exists, and to a heading of that page when it names one (`page.md#part`, `#part`, slugged as GitHub
// does); every repository path they name in code (`api/sessions/send.ts`) exists, so a moved file
// cannot leave a page pointing at nothing; every `npm run <script>` they name is a script of the root
// package.json or of one of its workspaces; and the README stays a page read in minutes. The checks are
// plain functions, first shown to catch mistakes in small inline pages, then run on the real ones; each
// problem names its file and line.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Each line of a Markdown page outside fenced code blocks, with its 1-based number. */
function proseLines(text: string): Array<[line: string, number: number]> {
  const lines: Array<[string, number]> = [];
  let fenced = false;
  text.split('\n').forEach((line, index) => {
    if (/^\s*```/.test(line)) fenced = !fenced;
    else if (!fenced) lines.push([line, index + 1]);
  });
  return lines;
}

/**
 * The anchors GitHub gives a page's headings: the heading's text without its Markdown (code marks, link
 * targets), lower case, with what is neither a letter, a digit, `_`, `-` nor a space left out and each
 * space made a `-`; a repeated heading gets `-1`, `-2`, ...
 */
function headingAnchors(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const [line] of proseLines(text)) {
    const heading = /^#{1,6}\s+(.+?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const words = heading[1]!.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1');
    const slug = words
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}_\- ]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

/**
 * Relative links of a Markdown page whose target is missing, or whose `#anchor` is no heading of the
 * page it points to, as `file:line target`. `read` gives a Markdown page's text (undefined: no such file).
 */
function brokenLinks(
  file: string,
  text: string,
  exists: (absolute: string) => boolean,
  read: (absolute: string) => string | undefined,
): string[] {
  const problems: string[] = [];
  for (const [line, number] of proseLines(text)) {
    for (const match of line.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      const target = match[1]!;
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
      const [pathPart, anchor] = target.split('#') as [string, string | undefined];
      const absolute = pathPart === '' ? file : path.resolve(path.dirname(file), decodeURIComponent(pathPart));
      const where = `${path.relative(ROOT, file)}:${number} ${target}`;
      if (!exists(absolute)) problems.push(where);
      else if (anchor !== undefined && absolute.endsWith('.md')) {
        const page = absolute === file ? text : read(absolute);
        if (page === undefined || !headingAnchors(page).has(decodeURIComponent(anchor))) problems.push(`${where} (no such heading)`);
      }
    }
  }
  return problems;
}

/** Top-level entries of the repository a page may name a path under, and what Git leaves out of it. */
const REPOSITORY_ROOTS = new Set(fs.readdirSync(ROOT).filter((name) => !['.git', 'node_modules', '.data'].includes(name)));
const UNTRACKED_SEGMENTS = /^(?:node_modules|dist|dist\..*|coverage)$/;

/**
 * Repository paths a page names in inline code (`api/sessions/send.ts`, `deploy/grafana/`) that do
 * not exist, as `file:line path`. A path counts when its first part is a top-level entry of the
 * repository; placeholders (`<id>`, `*`, `...`, `${...}`), URLs, absolute paths
 * and build outputs Git ignores (`dashboard/dist`) are not paths to check. A `:line` suffix is dropped.
 */
function missingPaths(file: string, text: string, exists: (relative: string) => boolean): string[] {
  const problems: string[] = [];
  for (const [line, number] of proseLines(text)) {
    for (const match of line.matchAll(/`([^`\s]+)`/g)) {
      const named = match[1]!.replace(/:\d+(?:-\d+)?$/, '');
      if (/[<>*{}$]|\.\.\.|:\/\/|^\//.test(named)) continue;
      const parts = named.split('/').filter(Boolean);
      if (!REPOSITORY_ROOTS.has(parts[0]!) || parts.some((part) => UNTRACKED_SEGMENTS.test(part))) continue;
      if (named.startsWith('bench/results')) continue; // benchmark output, ignored by Git
      // A single name (`package.json`, `service.jsonc`, `test`) may as well be the reader's own file or a word.
      if (parts.length === 1 && !named.endsWith('/')) continue;
      if (!exists(named)) problems.push(`${path.relative(ROOT, file)}:${number} ${named}`);
    }
  }
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

/** The README is the page a newcomer reads first, in a few minutes: detail belongs in docs/. */
const README_MAX_LINES = 200;

const readPage = (file: string) => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : undefined);

describe('the checks', () => {
  it('find a link to a missing page, and pass links that resolve, URLs and code blocks', () => {
    const page = path.join(ROOT, 'docs/x.md');
    const have = new Set([path.join(ROOT, 'docs/y.md'), path.join(ROOT, 'README.md')]);
    const text = [
      'See [y](y.md), [home](../README.md) and [web](https://example.com).',
      'Then [gone](z.md).',
      '```',
      '[not a link](nowhere.md)',
      '```',
    ].join('\n');
    expect(
      brokenLinks(
        page,
        text,
        (file) => have.has(file),
        () => '',
      ),
    ).toEqual(['docs/x.md:2 z.md']);
  });

  it('find a link to a heading the page does not have, on another page and on its own', () => {
    const page = path.join(ROOT, 'docs/x.md');
    const other = path.join(ROOT, 'docs/y.md');
    const pages = new Map([[other, '# Y\n\n## Running on a `Temporal` cluster, or Cloud\n\n## Part\n\n## Part\n']]);
    const text = [
      '# Intro',
      '',
      'See [y](y.md#running-on-a-temporal-cluster-or-cloud), [again](y.md#part-1), [top](#intro).',
      'Then [a](y.md#cluster), [b](#outro) and [c](y.md#part-2).',
      '```',
      '# not-a-heading',
      '```',
      '[d](#not-a-heading)',
    ].join('\n');
    expect(
      brokenLinks(
        page,
        text,
        (file) => file === page || pages.has(file),
        (file) => pages.get(file),
      ),
    ).toEqual([
      'docs/x.md:4 y.md#cluster (no such heading)',
      'docs/x.md:4 #outro (no such heading)',
      'docs/x.md:4 y.md#part-2 (no such heading)',
      'docs/x.md:8 #not-a-heading (no such heading)',
    ]);
  });

  it('find a repository path that moved, and leave placeholders, URLs, routes and build outputs alone', () => {
    const have = new Set(['contract/turn-events.ts', 'deploy/grafana/', 'docs/']);
    const text = [
      'Events: `api/streaming/turn-events.ts`, now `contract/turn-events.ts:12`; dashboards in `deploy/grafana/`.',
      'Also `docs/`, `deploy/grafana/dashbord.json`, `test/unit/<name>.test.ts`, `lib/*.ts`, `workflows/...`, `dashboard/dist`,',
      '`/session/<id>`, `https://example.com/api/x`, `cron:<agentId>:0`, `bench/results/`, `test` and `docs`.',
      '```',
      'cat api/old.ts `api/old.ts`',
      '```',
    ].join('\n');
    expect(missingPaths(path.join(ROOT, 'docs/x.md'), text, (named) => have.has(named))).toEqual([
      'docs/x.md:1 api/streaming/turn-events.ts',
      'docs/x.md:2 deploy/grafana/dashbord.json',
    ]);
  });

  it('find an npm script nobody defines', () => {
    const text = 'Run `npm run -s bench turn-latency`, then `npm run benhc`.';
    expect(unknownScripts(path.join(ROOT, 'README.md'), text, new Set(['bench']))).toEqual(['README.md:1 npm run benhc']);
  });
});

describe('README.md and docs/', () => {
  const scripts = allScripts();
  it.each(pages().map((file) => [path.relative(ROOT, file), file]))(
    '%s: every relative link and heading anchor resolves, every repository path exists and every npm script exists',
    (_name, file) => {
      const text = fs.readFileSync(file, 'utf8');
      expect([
        ...brokenLinks(file, text, (target) => fs.existsSync(target), readPage),
        ...missingPaths(file, text, (named) => fs.existsSync(path.join(ROOT, named))),
        ...unknownScripts(file, text, scripts),
      ]).toEqual([]);
    },
  );

  it(`README.md is under ${README_MAX_LINES} lines and leads to the docs index, which lists every page of docs/`, () => {
    const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    expect(readme.split('\n').length).toBeLessThan(README_MAX_LINES);
    expect(readme).toContain('](docs/README.md)');
    const index = fs.readFileSync(path.join(ROOT, 'docs/README.md'), 'utf8');
    const listed = new Set([...index.matchAll(/\]\(([\w-]+\.md)\)/g)].map((match) => match[1]!));
    const docs = fs.readdirSync(path.join(ROOT, 'docs')).filter((name) => name.endsWith('.md') && name !== 'README.md');
    expect(docs.filter((name) => !listed.has(name))).toEqual([]);
  });
});
