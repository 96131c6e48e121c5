// `npm run test:durations`: records how long each test file took in the last `npm test` (its tiers'
// reports under .data/test-results/) in test/durations.json, which orders the next run's files longest
// first (test/helpers/harness/longest-first.ts). Run it after a full `npm test` that added or slowed
// files, and commit the result. A file in two projects keeps its longer time.
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '..');
const REPORTS = path.join(ROOT, '.data', 'test-results');
const RECORD = path.join(ROOT, 'test', 'durations.json');

interface FileResult {
  name: string;
  startTime: number;
  endTime: number;
}

const reports = fs.existsSync(REPORTS) ? fs.readdirSync(REPORTS).filter((name) => name.endsWith('.json')) : [];
if (reports.length === 0) {
  process.stderr.write(`no test reports in ${path.relative(ROOT, REPORTS)}: run npm test first\n`);
  process.exit(1);
}
/** A file's path from the repository's root; a report made in another clone (CI's) names its own. */
function fromRoot(file: string): string {
  const name = path.relative(ROOT, file).split(path.sep).join('/');
  return name.startsWith('../') ? file.slice(file.indexOf('/test/') + 1) : name;
}

const seconds = new Map<string, number>();
for (const report of reports) {
  const { testResults } = JSON.parse(fs.readFileSync(path.join(REPORTS, report), 'utf8')) as { testResults: FileResult[] };
  for (const file of testResults) {
    const name = fromRoot(file.name);
    const took = Math.round((file.endTime - file.startTime) / 1000);
    seconds.set(name, Math.max(took, seconds.get(name) ?? 0));
  }
}
const sorted = Object.fromEntries([...seconds].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
fs.writeFileSync(
  RECORD,
  `${JSON.stringify({ about: 'Seconds per test file in a recorded run of npm test: the order of the next (npm run test:durations).', seconds: sorted }, null, 2)}\n`,
);
process.stderr.write(`recorded ${seconds.size} files from ${reports.join(', ')} in ${path.relative(ROOT, RECORD)}\n`);
