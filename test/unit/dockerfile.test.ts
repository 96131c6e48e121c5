// The Dockerfile cannot be built here (no Docker engine), so this checks what its image promises: one
// stage from a slim Node 20 image; the build made inside it (npm ci with the dev dependencies, npm run
// build, then the dev dependencies pruned) before NODE_ENV=production, which would have left the build's
// tools out; a prune that does not run the workspaces' prepare scripts again (the SDK's build needs the
// typescript it has just removed); a user other than root; and `npm run api`, whose production branch
// runs dist/ with plain node.
import fs from 'node:fs';
import { expect, test } from 'vitest';

interface Instruction {
  keyword: string;
  args: string;
}

/** The Dockerfile's instructions, continuation lines joined and comments dropped. */
function instructions(text: string): Instruction[] {
  return text
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'))
    .map((line) => {
      const [keyword, ...rest] = line.split(/\s+/);
      return { keyword: keyword!.toUpperCase(), args: rest.join(' ') };
    });
}

const read = (file: string) => fs.readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8');
const dockerfile = instructions(read('Dockerfile'));
const indexOf = (keyword: string, pattern: RegExp) => dockerfile.findIndex((step) => step.keyword === keyword && pattern.test(step.args));

test('the image is one stage from a slim Node 20 image', () => {
  const stages = dockerfile.filter((step) => step.keyword === 'FROM');
  expect(stages).toHaveLength(1);
  expect(stages[0]!.args).toMatch(/^node:20[\w.-]*-slim$/);
});

test('it installs everything, builds, then prunes the dev dependencies, all before NODE_ENV=production', () => {
  const run = dockerfile.filter((step) => step.keyword === 'RUN').map((step) => step.args);
  const steps = run.join(' && ').split(/\s*&&\s*/);
  const position = (pattern: RegExp) => steps.findIndex((step) => pattern.test(step));
  const install = position(/^npm ci\b/);
  const build = position(/^npm run build\b/);
  const prune = position(/^npm prune\b(?=.*--omit=dev)(?=.*--ignore-scripts)/);
  expect(install).toBeGreaterThanOrEqual(0);
  expect(install).toBeLessThan(build);
  expect(build).toBeLessThan(prune);
  const production = indexOf('ENV', /\bNODE_ENV=production\b/);
  expect(production).toBeGreaterThan(indexOf('RUN', /\bnpm run build\b/));
  expect(dockerfile.some((step) => step.keyword === 'ARG' && /NODE_ENV/.test(step.args))).toBe(false);
});

test('it runs as a user other than root, the API by default through its npm script', () => {
  const users = dockerfile.filter((step) => step.keyword === 'USER').map((step) => step.args);
  expect(users.at(-1)).toBeDefined();
  expect(['root', '0']).not.toContain(users.at(-1)!.split(':')[0]);
  expect(indexOf('USER', /./)).toBeGreaterThan(indexOf('RUN', /\bnpm run build\b/));
  expect(JSON.parse(dockerfile.findLast((step) => step.keyword === 'CMD')!.args)).toEqual(['npm', 'run', 'api']);
  const scripts = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts;
  expect(scripts.api).toContain('exec node --enable-source-maps dist/api/server.js');
});
