// The worker's node flags are spelled twice: in workers/node-flags.ts (the launcher, `npm start`) and in
// package.json's `worker` script (production). A worker must run the same way under both.
import fs from 'node:fs';
import { expect, test } from 'vitest';
import { WORKER_NODE_FLAGS } from '../../workers/node-flags.ts';

test("package.json's worker script passes node the launcher's worker flags", () => {
  const scripts = (
    JSON.parse(fs.readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { scripts: Record<string, string> }
  ).scripts;
  const words = scripts.worker!.split(/\s+/);
  const node = words.indexOf('node');
  const file = words.indexOf('workers/main.ts');
  const nodeFlags = words.slice(node + 1, file).filter((word, index, all) => word !== '--import' && all[index - 1] !== '--import');
  expect(nodeFlags).toEqual([...WORKER_NODE_FLAGS]);
});
