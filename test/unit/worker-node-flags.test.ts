// The worker's node flags are spelled in workers/node-flags.ts (the launcher, `npm start`) and in
// package.json's `worker` script (production), which runs node twice: the build with NODE_ENV=production,
// the source otherwise. A worker must run the same way under all three.
import fs from 'node:fs';
import { expect, test } from 'vitest';
import { WORKER_NODE_FLAGS } from '../../workers/node-flags.ts';

const scripts = (JSON.parse(fs.readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { scripts: Record<string, string> })
  .scripts;

/** Each `node` command of a script: the file it runs and its flags, less those that say how code is loaded (not how it runs). */
function nodeCommands(script: string): Array<{ file: string; flags: string[] }> {
  const words = script.split(/[\s;]+/);
  const commands: Array<{ file: string; flags: string[] }> = [];
  words.forEach((word, start) => {
    if (word !== 'node') return;
    const end = words.findIndex((other, index) => index > start && /\.(js|ts)$/.test(other));
    const flags = words
      .slice(start + 1, end)
      .filter((flag, index, all) => flag !== '--import' && all[index - 1] !== '--import' && flag !== '--enable-source-maps');
    commands.push({ file: words[end]!, flags });
  });
  return commands;
}

test("package.json's worker script passes node the launcher's worker flags, from the build and from source", () => {
  expect(nodeCommands(scripts.worker!)).toEqual([
    { file: 'dist/workers/main.js', flags: [...WORKER_NODE_FLAGS] },
    { file: 'workers/main.ts', flags: [...WORKER_NODE_FLAGS] },
  ]);
  expect(nodeCommands(scripts.api!).map((command) => command.file)).toEqual(['dist/api/server.js', 'api/server.ts']);
});
