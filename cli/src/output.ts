// What commands print. Results go to stdout; notes, progress and prompts to stderr, so that stdout
// stays the result alone (JSON under --json, or the reply text of a send) for a pipe or a script.
import { err, out } from './style.ts';
import { terminalText } from './terminal-text.ts';

/** A machine-readable result under --json: one JSON document on stdout. */
export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** One JSON value per line (a stream of events). */
export function printJsonLine(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}

export function printLine(text = ''): void {
  process.stdout.write(`${text}\n`);
}

/** A note for the person at the terminal, on stderr. */
export function note(text: string): void {
  process.stderr.write(`${text}\n`);
}

export function warn(text: string): void {
  process.stderr.write(`${err().yellow('warning:')} ${text}\n`);
}

/** Rows under a header, each column as wide as its widest cell; cells are printed as terminal text. */
export function printTable(header: string[], rows: Array<Array<string | number | null | undefined>>, empty = 'Nothing here yet.'): void {
  if (rows.length === 0) {
    note(empty);
    return;
  }
  const cells = [header, ...rows.map((row) => row.map((cell) => (cell === null || cell === undefined ? '-' : terminalText(String(cell)))))];
  const widths = header.map((_, column) => Math.max(...cells.map((row) => (row[column] ?? '').length)));
  const lines = cells.map((row) =>
    row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column] ?? 0))).join('  '),
  );
  const [head = '', ...body] = lines;
  process.stdout.write(`${out().bold(head)}\n${body.join('\n')}\n`);
}

/** Key-value lines, keys aligned; values are printed as terminal text (they come from the service). */
export function printFields(fields: Array<[string, string | number | boolean | null | undefined]>): void {
  const width = Math.max(...fields.map(([key]) => key.length));
  for (const [key, value] of fields) {
    const shown = value === null || value === undefined ? '-' : terminalText(String(value));
    process.stdout.write(`${out().dim(`${key}:`.padEnd(width + 1))} ${shown}\n`);
  }
}

/** "3 minutes ago"-style age of an ISO date, for listings read by people. */
export function age(iso: string | null | undefined): string {
  if (!iso) return '-';
  const seconds = Math.round((Date.now() - Date.parse(iso)) / 1000);
  if (Number.isNaN(seconds)) return iso;
  if (seconds < 60) return `${Math.max(seconds, 0)}s ago`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m ago`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)}h ago`;
  return `${Math.floor(seconds / 86_400)}d ago`;
}
