// What docs/configuration.md documents and what the code reads, as sets of variable names, so tests
// can hold the page and the code to one list (and the compose file to both).

/**
 * The variables of a settings table: every `NAME` in the first cell of the table rows between the
 * heading `heading` matches and the next `## ` heading (a row may name two, `A`, `B`). Empty when the
 * page has no such heading.
 */
export function settingsUnder(page: string, heading: RegExp): Set<string> {
  const start = page.search(heading);
  if (start < 0) return new Set();
  const rest = page.slice(start).replace(/^.*\n?/, '');
  const end = rest.search(/^## /m);
  const section = end < 0 ? rest : rest.slice(0, end);
  const names = new Set<string>();
  for (const row of section.matchAll(/^\|([^|\n]*)\|/gm)) {
    for (const name of row[1]!.matchAll(/`([A-Z][A-Z0-9_]*)`/g)) names.add(name[1]!);
  }
  return names;
}

/** The service's settings: the table under the page's `Configuration` title. */
export const serviceSettings = (page: string) => settingsUnder(page, /^#{1,2} Configuration\s*$/m);

/** The launcher's own settings: the table under "`npm start` settings". */
export const launcherSettings = (page: string) => settingsUnder(page, /^## `npm start` settings\s*$/m);

/** Names a configuration source reads from its environment: `env.NAME`, or a quoted 'NAME' passed to a reader. */
export function variablesReadBy(source: string): Set<string> {
  const names = [...source.matchAll(/\benv\.([A-Z][A-Z0-9_]*)\b|(['"`])([A-Z][A-Z0-9_]*)\2/g)].map((match) => match[1] ?? match[3]!);
  return new Set(names);
}

/** One direction of a comparison: what `have` holds that `want` lacks, each said with `say`. */
export function missingFrom(have: ReadonlySet<string>, want: ReadonlySet<string>, say: (name: string) => string): string[] {
  return [...have].filter((name) => !want.has(name)).map(say);
}

/**
 * Names the launcher reads: `env.NAME` and `process.env.NAME`, or a name given to one of its
 * `...FromEnv('NAME')` readers. `PATH` is the system's search path, not a setting of ours.
 */
export function variablesTheLauncherReads(source: string): Set<string> {
  const names = [...source.matchAll(/\benv\.([A-Z][A-Z0-9_]*)\b|FromEnv\(\s*'([A-Z][A-Z0-9_]*)'/g)].map((match) => match[1] ?? match[2]!);
  return new Set(names.filter((name) => name !== 'PATH'));
}
