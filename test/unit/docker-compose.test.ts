// docker-compose.yml cannot run here (no Docker engine), so this is what keeps it honest: it parses,
// it has the production topology, and its api and worker take only the variables README.md documents,
// spelled as lib/config.ts reads them. The checks are plain functions, first shown to catch mistakes
// in small inline files, then run on the real ones.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { SEARCH_ATTRIBUTES } from '../../lib/search-attributes.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const read = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8');

const TOPOLOGY = ['postgres', 'temporal', 'temporal-ui', 'api', 'worker'];
const APP_SERVICES = ['api', 'worker'];
const REQUIRED_APP_VARIABLES = ['NODE_ENV', 'DATABASE_URL', 'TEMPORAL_ADDRESS', 'SERVICE_MASTER_KEY'];

interface ComposeService {
  image?: string;
  build?: string | { context?: string; dockerfile?: string };
  command?: string | string[];
  entrypoint?: string | string[];
  environment?: Record<string, string | number | boolean | null> | string[];
}

interface ComposeFile {
  services?: Record<string, ComposeService>;
}

/** Parses as Compose does: YAML merge keys (`<<: *anchor`) on, duplicate keys an error. */
function parseCompose(text: string): ComposeFile {
  const doc = parseDocument(text, { merge: true, uniqueKeys: true });
  if (doc.errors.length) throw new Error(`docker-compose.yml: ${doc.errors.map((error) => error.message).join('; ')}`);
  return doc.toJS() as ComposeFile;
}

/** A service's environment as name -> value, from either of Compose's two forms. */
function environmentOf(service: ComposeService): Map<string, string | undefined> {
  const env = new Map<string, string | undefined>();
  if (Array.isArray(service.environment)) {
    for (const entry of service.environment) {
      const [name, ...value] = entry.split('=');
      env.set(name!, value.length ? value.join('=') : undefined);
    }
  } else {
    for (const [name, value] of Object.entries(service.environment ?? {})) env.set(name, value === null ? undefined : String(value));
  }
  return env;
}

/** The variable names of the rows of README.md's "Configuration" table, and of no other table. */
function documentedVariables(readme: string): Set<string> {
  const start = readme.search(/^## Configuration\s*$/m);
  if (start < 0) return new Set();
  const rest = readme.slice(start + 1);
  const end = rest.search(/^## /m);
  const section = end < 0 ? rest : rest.slice(0, end);
  return new Set([...section.matchAll(/^\|\s*`([A-Z][A-Z0-9_]*)`\s*\|/gm)].map((match) => match[1]!));
}

/** Names a source file reads from its environment: `env.NAME`, or a quoted 'NAME' passed to a reader. */
function variablesReadBy(source: string): Set<string> {
  const names = [...source.matchAll(/\benv\.([A-Z][A-Z0-9_]*)\b|(['"`])([A-Z][A-Z0-9_]*)\2/g)].map((match) => match[1] ?? match[3]!);
  return new Set(names);
}

/** Everything wrong with the compose file's api and worker services against the README and config source. */
function configurationProblems(compose: ComposeFile, readme: string, configSource: string): string[] {
  const documented = documentedVariables(readme);
  const read = variablesReadBy(configSource);
  const problems: string[] = [];
  for (const name of read) {
    if (!documented.has(name)) problems.push(`lib/config.ts reads ${name}, which README.md's Configuration table does not document`);
  }
  for (const serviceName of APP_SERVICES) {
    const service = compose.services?.[serviceName];
    if (!service) {
      problems.push(`there is no ${serviceName} service`);
      continue;
    }
    const env = environmentOf(service);
    for (const name of REQUIRED_APP_VARIABLES) {
      if (!env.has(name)) problems.push(`${serviceName} does not set ${name}`);
    }
    if (env.has('NODE_ENV') && env.get('NODE_ENV') !== 'production') problems.push(`${serviceName} sets NODE_ENV=${env.get('NODE_ENV')}`);
    for (const [name, value] of env) {
      if (!documented.has(name)) problems.push(`${serviceName} sets ${name}, which README.md's Configuration table does not document`);
      else if (!read.has(name)) problems.push(`${serviceName} sets ${name}, which lib/config.ts does not read`);
      // A value passed through from the host (`NAME: ${NAME:-default}`) must keep its name there too.
      const passed = /^\$\{([A-Za-z_][A-Za-z0-9_]*)(?::?[-?+].*)?\}$/s.exec(value ?? '');
      if (passed && passed[1] !== name) problems.push(`${serviceName} sets ${name} from the host's ${passed[1]}`);
    }
  }
  return problems;
}

function words(value: string | string[] | undefined): string {
  return Array.isArray(value) ? value.join(' ') : (value ?? '');
}

const README = `# x
## Configuration
| Variable | Default | Meaning |
|---|---|---|
| \`NODE_ENV\` | \`development\` | mode |
| \`DATABASE_URL\` | embedded | db |
| \`TEMPORAL_ADDRESS\` | dev server | temporal |
| \`SERVICE_MASTER_KEY\` | generated | key |
| \`TASK_QUEUE\` | \`q\` | read elsewhere |
## Development
| \`LOG_LEVEL\` | not the configuration table | |
`;
const CONFIG = `const mode = env.NODE_ENV; str(env, 'DATABASE_URL'); str(env, "TEMPORAL_ADDRESS"); str(env, 'SERVICE_MASTER_KEY');`;
const GOOD = `
x-env: &env
  NODE_ENV: production
  DATABASE_URL: postgres://db
  TEMPORAL_ADDRESS: temporal:7233
services:
  api:
    environment:
      <<: *env
      SERVICE_MASTER_KEY: \${SERVICE_MASTER_KEY:?set it}
  worker:
    environment:
      - NODE_ENV=production
      - DATABASE_URL=postgres://db
      - TEMPORAL_ADDRESS=temporal:7233
      - SERVICE_MASTER_KEY
`;

describe('the compose checks', () => {
  it('accept a file that uses only documented variables, in either environment form and through merge keys', () => {
    expect(documentedVariables(README)).toEqual(
      new Set(['NODE_ENV', 'DATABASE_URL', 'TEMPORAL_ADDRESS', 'SERVICE_MASTER_KEY', 'TASK_QUEUE']),
    );
    expect(configurationProblems(parseCompose(GOOD), README, CONFIG)).toEqual([]);
  });

  it('reject an undocumented variable, whichever form names it', () => {
    const mapped = GOOD.replace('  TEMPORAL_ADDRESS: temporal:7233\n', '  TEMPORAL_ADDRESS: temporal:7233\n  TEMPORAL_HOST: temporal\n');
    expect(configurationProblems(parseCompose(mapped), README, CONFIG)).toEqual([
      "api sets TEMPORAL_HOST, which README.md's Configuration table does not document",
    ]);
    const listed = GOOD.replace('      - SERVICE_MASTER_KEY\n', '      - SERVICE_MASTER_KEY\n      - LOG_LEVEL=debug\n');
    expect(configurationProblems(parseCompose(listed), README, CONFIG)).toEqual([
      "worker sets LOG_LEVEL, which README.md's Configuration table does not document",
    ]);
  });

  it('reject a documented variable that lib/config.ts does not read, and one it reads that is not documented', () => {
    const extra = GOOD.replace('      - SERVICE_MASTER_KEY\n', '      - SERVICE_MASTER_KEY\n      - TASK_QUEUE=q\n');
    expect(configurationProblems(parseCompose(extra), README, CONFIG)).toEqual([
      'worker sets TASK_QUEUE, which lib/config.ts does not read',
    ]);
    expect(configurationProblems(parseCompose(GOOD), README, `${CONFIG} int(env, 'PORT', 3000);`)).toEqual([
      "lib/config.ts reads PORT, which README.md's Configuration table does not document",
    ]);
  });

  it('reject a missing required variable, a mode other than production, and a renamed pass-through', () => {
    const broken = GOOD.replace('  DATABASE_URL: postgres://db\n', '')
      .replace('NODE_ENV: production', 'NODE_ENV: development')
      .replace('${SERVICE_MASTER_KEY:?set it}', '${MASTER_KEY:?set it}');
    expect(configurationProblems(parseCompose(broken), README, CONFIG)).toEqual([
      'api does not set DATABASE_URL',
      'api sets NODE_ENV=development',
      "api sets SERVICE_MASTER_KEY from the host's MASTER_KEY",
    ]);
    expect(configurationProblems(parseCompose('services: {}'), README, CONFIG)).toEqual([
      'there is no api service',
      'there is no worker service',
    ]);
  });

  it('reject YAML that Compose would reject', () => {
    expect(() => parseCompose('services:\n  api: {}\n  api: {}\n')).toThrow(/docker-compose.yml/);
  });
});

describe('docker-compose.yml', () => {
  const compose = parseCompose(read('docker-compose.yml'));
  const services = compose.services ?? {};

  it('has the production topology: PostgreSQL, Temporal on it, the Web UI, api and worker', () => {
    expect(Object.keys(services)).toEqual(expect.arrayContaining(TOPOLOGY));
    expect(services.postgres?.image).toMatch(/^postgres:/);
    expect(services.temporal?.image).toMatch(/^temporalio\/(server|auto-setup):/);
    expect(environmentOf(services.temporal!).get('POSTGRES_SEEDS')).toBe('postgres');
    expect(services['temporal-ui']?.image).toMatch(/^temporalio\/ui:/);
  });

  it("gives api and worker only README.md's documented variables, as lib/config.ts spells them", () => {
    expect(configurationProblems(compose, read('README.md'), read('lib/config.ts'))).toEqual([]);
  });

  it('runs api and worker from the image the Dockerfile builds, with the npm scripts of package.json', () => {
    const scripts = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts;
    const dockerfile = read('Dockerfile');
    expect(dockerfile).toMatch(/^FROM node:20/m);
    expect(dockerfile).toMatch(/^RUN npm ci\b/m);
    for (const name of APP_SERVICES) {
      const service = services[name]!;
      const build = typeof service.build === 'string' ? { context: service.build } : service.build;
      expect(build?.context).toBe('.');
      expect(build?.dockerfile ?? 'Dockerfile').toBe('Dockerfile');
      expect(words(service.command)).toBe(`npm run ${name}`);
      expect(scripts[name]).toBeDefined();
    }
  });

  it('registers the namespace and every search attribute the workflows set', () => {
    const setup = Object.values(services).find((service) => words(service.command).includes('search-attribute create'));
    expect(setup, 'a service running `temporal operator search-attribute create`').toBeDefined();
    const script = words(setup!.command);
    expect(script).toContain('namespace create');
    for (const attribute of SEARCH_ATTRIBUTES) {
      expect(script).toContain(`--name ${attribute.name}`);
      expect(attribute.type).toBe('Keyword');
    }
    expect(script).toContain('--type Keyword');
  });
});
