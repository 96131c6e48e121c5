// Recorded workflow histories kept as test fixtures: where they live, how they are read and written,
// and what text they hold once their payloads are decoded (for the secret check). A fixture is the
// history of a run as an earlier version of the code made it; the replay test runs today's code
// against it, which is what a worker does with a run that was in flight across an upgrade.
import fs from 'node:fs';
import path from 'node:path';
import { historyFromJSON, historyToJSON, type History } from '@temporalio/common/lib/proto-utils.js';

export const HISTORIES_DIR = path.resolve(import.meta.dirname, '../fixtures/histories');

export interface HistoryFixture {
  /** The file name without `.json`: `<workflowType>-<state>`. */
  name: string;
  workflowType: string;
  history: History;
  /** The file's text with every payload decoded, for searching. */
  text: string;
}

/** `<workflowType>-<state>`: the file name says which workflow it replays and in what state it was recorded. */
export function fixtureName(workflowType: string, state: string): string {
  return `${workflowType}-${state}`;
}

export function fixturePath(name: string): string {
  return path.join(HISTORIES_DIR, `${name}.json`);
}

export function workflowTypeOf(history: History): string {
  const started = history.events?.[0]?.workflowExecutionStartedEventAttributes;
  const type = started?.workflowType?.name;
  if (!type) throw new Error('the history does not start with WorkflowExecutionStarted');
  return type;
}

export function writeFixture(name: string, history: History): string {
  fs.mkdirSync(HISTORIES_DIR, { recursive: true });
  const file = fixturePath(name);
  // One event per line keeps a fixture's diff readable when one is ever re-recorded on purpose.
  const { events } = JSON.parse(historyToJSON(history)) as { events: unknown[] };
  fs.writeFileSync(file, `{\n  "events": [\n${events.map((event) => `    ${JSON.stringify(event)}`).join(',\n')}\n  ]\n}\n`);
  return file;
}

export function readFixtures(): HistoryFixture[] {
  if (!fs.existsSync(HISTORIES_DIR)) return [];
  return fs
    .readdirSync(HISTORIES_DIR)
    .filter((file) => file.endsWith('.json'))
    .sort()
    .map((file) => {
      try {
        const raw = fs.readFileSync(path.join(HISTORIES_DIR, file), 'utf8');
        const history = historyFromJSON(JSON.parse(raw));
        return { name: file.slice(0, -'.json'.length), workflowType: workflowTypeOf(history), history, text: decodedText(raw) };
      } catch (error) {
        throw new Error(`test/fixtures/histories/${file} is not a workflow history: ${String(error)}`, { cause: error });
      }
    });
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
