// Recorded workflow histories kept as test fixtures: where they live, how they are read and written,
// and what text they hold once their payloads are decoded (for the secret check). A fixture is the
// history of a run as a release of the code made it; the replay test runs today's code against it,
// which is what a worker does with a run that was in flight across an upgrade. Each release's
// histories sit in a folder of its own (`<version>/`): a release replays its own and the previous
// release's, and drops the folder of the one before (docs/operating.md, "Upgrades and workflow versions").
import fs from 'node:fs';
import path from 'node:path';
import { historyFromJSON, historyToJSON, type History } from '@temporalio/common/lib/proto-utils.js';

export const HISTORIES_DIR = path.resolve(import.meta.dirname, '../fixtures/histories');

/** This code's release (package.json): new recordings go to its folder. */
export const RELEASE = (JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, '../../package.json'), 'utf8')) as { version: string })
  .version;

export interface HistoryFixture {
  /** `<release>/<workflowType>-<state>`: the path under test/fixtures/histories, without `.json`. */
  name: string;
  /** The release folder it sits in: histories that release's code made, or (0.1.0/) replays as it made them. */
  release: string;
  workflowType: string;
  history: History;
  /** The file's text with every payload decoded, for searching. */
  text: string;
}

/** `<workflowType>-<state>`: the file name says which workflow it replays and in what state it was recorded. */
export function fixtureName(workflowType: string, state: string): string {
  return `${workflowType}-${state}`;
}

/** Where a recording of this release is written. */
export function fixturePath(name: string): string {
  return path.join(HISTORIES_DIR, RELEASE, `${name}.json`);
}

export function workflowTypeOf(history: History): string {
  const started = history.events?.[0]?.workflowExecutionStartedEventAttributes;
  const type = started?.workflowType?.name;
  if (!type) throw new Error('the history does not start with WorkflowExecutionStarted');
  return type;
}

export function writeFixture(name: string, history: History): string {
  const file = fixturePath(name);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  // One event per line keeps a fixture's diff readable when one is ever re-recorded on purpose.
  const { events } = JSON.parse(historyToJSON(history)) as { events: unknown[] };
  fs.writeFileSync(file, `{\n  "events": [\n${events.map((event) => `    ${JSON.stringify(event)}`).join(',\n')}\n  ]\n}\n`);
  return file;
}

/** Every release folder's fixtures, in order of release and name. */
export function readFixtures(): HistoryFixture[] {
  if (!fs.existsSync(HISTORIES_DIR)) return [];
  const releases = fs
    .readdirSync(HISTORIES_DIR, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
  return releases.flatMap((release) =>
    fs
      .readdirSync(path.join(HISTORIES_DIR, release))
      .filter((file) => file.endsWith('.json'))
      .sort()
      .map((file) => {
        const name = `${release}/${file.slice(0, -'.json'.length)}`;
        try {
          const raw = fs.readFileSync(path.join(HISTORIES_DIR, release, file), 'utf8');
          const history = historyFromJSON(JSON.parse(raw));
          return { name, release, workflowType: workflowTypeOf(history), history, text: decodedText(raw) };
        } catch (error) {
          throw new Error(`test/fixtures/histories/${name}.json is not a workflow history: ${String(error)}`, { cause: error });
        }
      }),
  );
}

/** The JSON text plus every base64 `data` member decoded (payloads, markers), so a search sees what they carry. */
export function decodedText(json: string): string {
  const decoded: string[] = [json];
  JSON.parse(json, (key, value: unknown) => {
    if (key === 'data' && typeof value === 'string') decoded.push(Buffer.from(value, 'base64').toString('utf8'));
    return value;
  });
  return decoded.join('\n');
}

/**
 * What must never be in a recorded history (keys, webhook secrets, answer links, bot tokens). The
 * fake model's key (`test-key`) may be: it opens nothing. `known` adds exact values a recording used.
 */
const SECRET_SHAPES: Array<[string, RegExp]> = [
  ['an API key', /\bsk_[0-9a-z]{32}\b/i],
  ['a webhook secret', /whsec_[A-Za-z0-9+/=]{16,}/],
  ['a signed approval token', /\bapr_[0-9a-z]{26}\.[0-9a-z]{20}\b/],
  ['a Slack bot token', /xox[bp]-/],
  ['a master key', /test-master-key-/],
];

export function secretsIn(text: string, known: string[] = []): string[] {
  const found = SECRET_SHAPES.filter(([, shape]) => shape.test(text)).map(([what]) => what);
  return [...found, ...known.filter((value) => value.length > 0 && text.includes(value)).map(() => 'a secret value the recording used')];
}
