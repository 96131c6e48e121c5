// docker-compose.yml cannot run here (no Docker engine), so this is what keeps it honest: it parses,
// it has the production topology, its api and worker take only the variables docs/configuration.md
// documents, spelled as the service's configuration reads them (that the page and the code agree is
// test/unit/docs-configuration.test.ts), and it publishes no port on every interface of the host (the
// Temporal Web UI has no login; the API belongs behind a TLS proxy). The checks are plain functions, first shown to catch mistakes
// in small inline files, then run on the real ones.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { SEARCH_ATTRIBUTES } from '../../lib/workflow-safe/search-attributes.ts';
import { serviceSettings, variablesReadBy } from '../helpers/docs/configuration-page.ts';

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
  ports?: Array<string | number | { target?: number | string; published?: number | string; host_ip?: string }>;
  network_mode?: string;
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

/** Everything wrong with the compose file's api and worker services against the configuration page and source. */
function configurationProblems(compose: ComposeFile, page: string, configSource: string): string[] {
  const documented = serviceSettings(page);
  const read = variablesReadBy(configSource);
  const problems: string[] = [];
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
      if (!documented.has(name)) problems.push(`${serviceName} sets ${name}, which the configuration page does not document`);
      else if (!read.has(name)) problems.push(`${serviceName} sets ${name}, which lib/config.ts does not read`);
      // A value passed through from the host (`NAME: ${NAME:-default}`) must keep its name there too.
      const passed = /^\$\{([A-Za-z_][A-Za-z0-9_]*)(?::?[-?+].*)?\}$/s.exec(value ?? '');
      if (passed && passed[1] !== name) problems.push(`${serviceName} sets ${name} from the host's ${passed[1]}`);
    }
  }
  return problems;
}

const EVERY_INTERFACE = new Set(['', '0.0.0.0', '::', '[::]']);

/** `${NAME:-default}` / `${NAME-default}` as Compose would expand it with NAME unset; undefined for `${NAME}`. */
function withDefaults(value: string): string | undefined {
  let unresolved = false;
  const expanded = value.replace(/\$\{[A-Za-z_][A-Za-z0-9_]*(?::?-([^}]*))?\}/g, (_, fallback: string | undefined) => {
    if (fallback === undefined) unresolved = true;
    return fallback ?? '';
  });
  return unresolved ? undefined : expanded;
}

/** The host address of a published port, '' when the entry names none (Compose then binds every interface). */
function hostAddressOf(port: NonNullable<ComposeService['ports']>[number]): string | undefined {
  if (typeof port === 'object') return port.host_ip === undefined ? '' : withDefaults(port.host_ip);
  const spec = withDefaults(String(port).replace(/\/(tcp|udp|sctp)$/, ''));
  if (spec === undefined) return undefined;
  if (spec.startsWith('[')) return spec.slice(0, spec.indexOf(']') + 1);
  const parts = spec.split(':');
  // CONTAINER or HOST:CONTAINER publish on every interface; IP:HOST:CONTAINER on IP only.
  return parts.length >= 3 ? parts.slice(0, -2).join(':') : '';
}

/** Every service that publishes a port on every interface of the host (or whose address cannot be told). */
function publishedEverywhere(compose: ComposeFile): string[] {
  const problems: string[] = [];
  for (const [name, service] of Object.entries(compose.services ?? {})) {
    if (service.network_mode === 'host') problems.push(`${name} uses the host's network: every port it listens on is published`);
    for (const port of service.ports ?? []) {
      const address = hostAddressOf(port);
      const shown = typeof port === 'object' ? JSON.stringify(port) : String(port);
      if (address === undefined) problems.push(`${name} publishes ${shown} on an address that depends on the host's environment`);
      else if (EVERY_INTERFACE.has(address)) problems.push(`${name} publishes ${shown} on every interface`);
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
    expect(serviceSettings(README)).toEqual(new Set(['NODE_ENV', 'DATABASE_URL', 'TEMPORAL_ADDRESS', 'SERVICE_MASTER_KEY', 'TASK_QUEUE']));
    expect(configurationProblems(parseCompose(GOOD), README, CONFIG)).toEqual([]);
  });

  it('reject an undocumented variable, whichever form names it', () => {
    const mapped = GOOD.replace('  TEMPORAL_ADDRESS: temporal:7233\n', '  TEMPORAL_ADDRESS: temporal:7233\n  TEMPORAL_HOST: temporal\n');
    expect(configurationProblems(parseCompose(mapped), README, CONFIG)).toEqual([
      'api sets TEMPORAL_HOST, which the configuration page does not document',
    ]);
    const listed = GOOD.replace('      - SERVICE_MASTER_KEY\n', '      - SERVICE_MASTER_KEY\n      - LOG_LEVEL=debug\n');
    expect(configurationProblems(parseCompose(listed), README, CONFIG)).toEqual([
      'worker sets LOG_LEVEL, which the configuration page does not document',
    ]);
  });

  it('reject a documented variable that lib/config.ts does not read', () => {
    const extra = GOOD.replace('      - SERVICE_MASTER_KEY\n', '      - SERVICE_MASTER_KEY\n      - TASK_QUEUE=q\n');
    expect(configurationProblems(parseCompose(extra), README, CONFIG)).toEqual([
      'worker sets TASK_QUEUE, which lib/config.ts does not read',
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

  it('reject a port published on every interface, in each form Compose takes', () => {
    const withPorts = (...ports: string[]) =>
      parseCompose(`services:\n  ui:\n    ports:\n${ports.map((port) => `      - ${port}\n`).join('')}`);
    expect(publishedEverywhere(withPorts("'127.0.0.1:8080:8080'", "'[::1]:8081:8081'", "'10.1.2.3:53:53/udp'"))).toEqual([]);
    expect(publishedEverywhere(withPorts("'${UI_ADDRESS:-127.0.0.1}:8080:8080'"))).toEqual([]);
    expect(
      publishedEverywhere(withPorts("'8080:8080'", '8081', "'0.0.0.0:8082:8082'", "'[::]:8083:8083'", "'9000-9001:9000-9001/tcp'")),
    ).toEqual([
      'ui publishes 8080:8080 on every interface',
      'ui publishes 8081 on every interface',
      'ui publishes 0.0.0.0:8082:8082 on every interface',
      'ui publishes [::]:8083:8083 on every interface',
      'ui publishes 9000-9001:9000-9001/tcp on every interface',
    ]);
    expect(publishedEverywhere(withPorts("'${UI_ADDRESS}:8080:8080'"))).toEqual([
      "ui publishes ${UI_ADDRESS}:8080:8080 on an address that depends on the host's environment",
    ]);
    const long = parseCompose(
      'services:\n  ui:\n    ports:\n      - { target: 8080, published: 8080 }\n      - { target: 8081, published: 8081, host_ip: 127.0.0.1 }\n',
    );
    expect(publishedEverywhere(long)).toEqual(['ui publishes {"target":8080,"published":8080} on every interface']);
    expect(publishedEverywhere(parseCompose('services:\n  api:\n    network_mode: host\n'))).toEqual([
      "api uses the host's network: every port it listens on is published",
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

  it('gives api and worker only documented variables, as the configuration source spells them', () => {
    const configSource = read('lib/config.ts') + read('lib/temporal-tls-config.ts');
    expect(configurationProblems(compose, read('docs/configuration.md'), configSource)).toEqual([]);
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

  it('publishes no port on every interface: the Web UI and the API answer on 127.0.0.1 only', () => {
    expect(publishedEverywhere(compose)).toEqual([]);
    expect(services['temporal-ui']?.ports?.map((port) => hostAddressOf(port))).toEqual(['127.0.0.1']);
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
