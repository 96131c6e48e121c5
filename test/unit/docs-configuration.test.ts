// docs/configuration.md lists exactly the settings the code reads, both ways: every variable the
// service's configuration source reads (lib/config.ts, and lib/temporal-tls-config.ts which it calls)
// is in the page's main table and every row of that table is one it reads; likewise the table of
// `npm start`'s own settings against the launcher (dev/main.ts, dev/temporal-cli.ts). A setting added
// without its row, or a row left behind by a setting removed or renamed, fails here with its name.
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  launcherSettings,
  missingFrom,
  serviceSettings,
  variablesReadBy,
  variablesTheLauncherReads,
} from '../helpers/docs/configuration-page.ts';

const read = (file: string) => fs.readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8');

/** Both directions of page against code, each problem a sentence naming the variable. */
function disagreements(documented: ReadonlySet<string>, readByCode: ReadonlySet<string>, table: string, code: string): string[] {
  return [
    ...missingFrom(readByCode, documented, (name) => `${code} reads ${name}, which the ${table} does not list`),
    ...missingFrom(documented, readByCode, (name) => `the ${table} lists ${name}, which ${code} does not read`),
  ];
}

const PAGE = [
  '# Configuration',
  '',
  '| Variable | Default | Meaning |',
  '| --- | --- | --- |',
  '| `PORT` | `3000` | The port. |',
  '| `TEMPORAL_TLS_CERT`, `TEMPORAL_TLS_KEY` | | Mutual TLS; `LOG_LEVEL` in a meaning is not a row. |',
  '',
  '## `npm start` settings',
  '',
  '| `EMBEDDED_PG_PORT` | `5433` | Its port. |',
].join('\n');

describe('the checks', () => {
  it('read each table up to the next section, every name of a first cell and no other', () => {
    expect(serviceSettings(PAGE)).toEqual(new Set(['PORT', 'TEMPORAL_TLS_CERT', 'TEMPORAL_TLS_KEY']));
    expect(launcherSettings(PAGE)).toEqual(new Set(['EMBEDDED_PG_PORT']));
  });

  it('find a setting read but not documented, and one documented but not read', () => {
    const source = "int(env, 'PORT', 3000); pemFile(env, 'TEMPORAL_TLS_CERT'); env.TEMPORAL_TLS_KEY; str(env, 'HOST');";
    expect(disagreements(serviceSettings(PAGE), variablesReadBy(source), 'main table', 'lib/config.ts')).toEqual([
      'lib/config.ts reads HOST, which the main table does not list',
    ]);
    const launcher = "process.on('SIGINT', stop); portFromEnv('TEMPORAL_UI_PORT', 8233); env.PATH;";
    expect(disagreements(launcherSettings(PAGE), variablesTheLauncherReads(launcher), 'launcher table', 'dev/')).toEqual([
      'dev/ reads TEMPORAL_UI_PORT, which the launcher table does not list',
      'the launcher table lists EMBEDDED_PG_PORT, which dev/ does not read',
    ]);
  });
});

describe('docs/configuration.md', () => {
  const page = read('docs/configuration.md');

  it("lists exactly the service's settings, as lib/config.ts and lib/temporal-tls-config.ts read them", () => {
    const source = read('lib/config.ts') + read('lib/temporal-tls-config.ts');
    expect(serviceSettings(page).size).toBeGreaterThan(50);
    expect(disagreements(serviceSettings(page), variablesReadBy(source), 'main table', 'the service')).toEqual([]);
  });

  it("lists exactly npm start's own settings, as the launcher reads them", () => {
    const source = read('dev/main.ts') + read('dev/temporal-cli.ts');
    const service = variablesReadBy(read('lib/config.ts'));
    // The launcher also reads service settings (DATA_DIR, DATABASE_URL, ...) through lib/config.ts; those rows are in the main table.
    const ownSettings = new Set([...variablesTheLauncherReads(source)].filter((name) => !service.has(name)));
    expect(disagreements(launcherSettings(page), ownSettings, 'npm start table', 'the launcher')).toEqual([]);
    expect(launcherSettings(page).size).toBeGreaterThan(0);
  });
});
