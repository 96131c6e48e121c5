// Where a process's CPU went, from the V8 profiles `node --cpu-prof` writes (one `.cpuprofile` per
// process, at its exit): for each profile, which process it is (the API, the worker, the launcher or
// another, by its entry module), its sampled CPU time, the functions with the most self time, and the
// same time by where the code lives (a folder of ours, an npm package, Node's own, the garbage collector).
// Prints JSON, as every bench does:
//   NODE_OPTIONS="--cpu-prof --cpu-prof-dir=/tmp/prof" <run the service under load, then stop it>
//   npx tsx bench/cpu-profile-top.ts /tmp/prof [--top 15]
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Which process wrote the profile, from the modules it ran. */
function roleOf(urls: ReadonlySet<string>): string {
  const ran = (file: string) => [...urls].some((url) => url.endsWith(file));
  if (ran('/workers/main.ts') || ran('/workers/main.js')) return 'worker';
  if (ran('/api/server.ts') || ran('/api/server.js')) return 'api';
  if (ran('/dev/main.ts')) return 'launcher';
  return 'other';
}

/** Where a function lives: an npm package, one of our folders, Node itself, or what V8 names in parentheses. */
function placeOf(url: string, functionName: string): string {
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  const modules = url.lastIndexOf('/node_modules/');
  if (modules !== -1) {
    const rest = url.slice(modules + '/node_modules/'.length).split('/');
    return rest[0]!.startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]!;
  }
  if (url.startsWith('node:')) return 'node';
  const root = path.resolve(import.meta.dirname, '..');
  const local = url.replace(/^file:\/\//, '');
  if (local.startsWith(root)) return `ours:${path.relative(root, local).split(path.sep)[0]}`;
  return 'other';
}

function summarize(file: string, top: number) {
  const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfUs = new Map<number, number>();
  profile.samples.forEach((id, index) => selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[index] ?? 0)));
  const functions = new Map<string, number>();
  const places = new Map<string, number>();
  let totalUs = 0;
  let idleUs = 0;
  for (const [id, us] of selfUs) {
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    if (functionName === '(idle)') {
      idleUs += us;
      continue;
    }
    totalUs += us;
    const name =
      `${functionName || '(anonymous)'} ${url ? `${url.replace(/^.*\/node_modules\//, '').replace(/^file:\/\/.*?\/(?=[a-z]+\/)/, '')}:${lineNumber + 1}` : ''}`.trim();
    functions.set(name, (functions.get(name) ?? 0) + us);
    const place = placeOf(url, functionName);
    places.set(place, (places.get(place) ?? 0) + us);
  }
  const ranked = (map: Map<string, number>) =>
    [...map]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, us]) => ({ name, ms: Math.round(us / 1000), share: Math.round((us / totalUs) * 1000) / 10 }));
  return {
    file: path.basename(file),
    role: roleOf(new Set(profile.nodes.map((node) => node.callFrame.url))),
    cpuMs: Math.round(totalUs / 1000),
    idleMs: Math.round(idleUs / 1000),
    byPlace: ranked(places),
    topFunctions: ranked(functions),
  };
}

const { values, positionals } = parseArgs({ options: { top: { type: 'string', default: '15' } }, allowPositionals: true });
const dir = positionals[0];
if (!dir) throw new Error('usage: tsx bench/cpu-profile-top.ts <dir of .cpuprofile files> [--top N]');
const profiles = fs
  .readdirSync(dir)
  .filter((name) => name.endsWith('.cpuprofile'))
  .map((name) => summarize(path.join(dir, name), Number(values.top)))
  .sort((a, b) => b.cpuMs - a.cpuMs);
process.stdout.write(`${JSON.stringify({ name: 'cpu-profile-top', profiles }, null, 2)}\n`);
