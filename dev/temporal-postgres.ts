// A Temporal server with persistence and visibility in PostgreSQL: the engine a production user runs
// (docs/operating.md, "Temporal on PostgreSQL"), as opposed to the dev server's SQLite file. Used by
// `npm run temporal:postgres` (dev/temporal-postgres-cli.ts), by the tests that run the durability
// scenarios on it (vitest project `temporal-on-postgres`) and by `npm run bench` with
// BENCH_TEMPORAL=postgres. The databases are created and their schemas brought up to date on start.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Connection, Client } from '@temporalio/client';
import { msToTs } from '@temporalio/common';
import pg from 'pg';
import { SEARCH_ATTRIBUTES, searchAttributes } from '../lib/workflow-safe/search-attributes.ts';
import { registerSearchAttributes } from '../lib/search-attribute-registry.ts';
import { obtainTemporalServer, type TemporalServerBinaries } from './temporal-server-binaries.ts';
import { tuningValues } from './temporal-dev-server.ts';
import { canConnect, waitFor } from './ports.ts';
import type { RunningTemporal } from './temporal-dev-server.ts';
import { serverProcess } from './server-process.ts';

export interface PostgresTemporalOptions {
  /** A PostgreSQL role that may create databases: `postgres://user:password@host:port/any`. */
  adminUrl: string;
  /** The two databases: `<prefix>` (persistence) and `<prefix>_visibility`. Created when missing. */
  databasePrefix: string;
  /** Where the server's configuration and log go. */
  dir: string;
  /**
   * The frontend's gRPC port (TEMPORAL_ADDRESS is 127.0.0.1:<port>); a free one when absent. The other
   * services take ports beside it (SERVICE_PORTS), all below 32768: the server keeps membership ports
   * in a smallint column.
   */
  port?: number;
  namespace: string;
  log?: (line: string) => void;
  /**
   * stop() also drops the two databases: a run's own throwaway server (the tests' `temporal-on-postgres`
   * project), which must not leave them behind in a PostgreSQL it shares (DATABASE_URL).
   */
  dropDatabasesOnStop?: boolean;
}

/** The server's services and their ports' offsets from the frontend's, as in the module's own configs. */
const SERVICES = ['frontend', 'history', 'matching', 'worker'] as const;
type Service = (typeof SERVICES)[number];
type Ports = Record<Service, { grpc: number; membership: number }>;
const SERVICE_PORTS: Ports = {
  frontend: { grpc: 0, membership: -300 },
  history: { grpc: 1, membership: -299 },
  matching: { grpc: 2, membership: -298 },
  worker: { grpc: 6, membership: -294 },
};

function portsFrom(frontend: number): Ports {
  const ports = {} as Ports;
  for (const service of SERVICES) {
    ports[service] = { grpc: frontend + SERVICE_PORTS[service].grpc, membership: frontend + SERVICE_PORTS[service].membership };
  }
  return ports;
}

/** A frontend port whose whole set of ports is free (and below 32768). */
async function freePortSet(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const frontend = 20_000 + Math.floor(Math.random() * 12_000);
    const all = Object.values(portsFrom(frontend)).flatMap((ports) => [ports.grpc, ports.membership]);
    const taken = await Promise.all(all.map((port) => canConnect(port)));
    if (!taken.some(Boolean)) return frontend;
  }
  throw new Error('found no free set of ports for the Temporal server');
}

function sqlTool(binaries: TemporalServerBinaries, admin: URL, database: string, ...command: string[]): { ok: boolean; output: string } {
  const result = spawnSync(
    binaries.sql,
    [
      '--plugin',
      'postgres12',
      '--ep',
      admin.hostname,
      '-p',
      admin.port || '5432',
      '-u',
      decodeURIComponent(admin.username),
      ...(admin.password ? ['--pw', decodeURIComponent(admin.password)] : []),
      '--db',
      database,
      ...command,
    ],
    { encoding: 'utf8' },
  );
  return { ok: result.status === 0, output: `${result.stdout}${result.stderr}` };
}

/** Creates the database when it does not exist and applies every versioned schema it lacks. */
function prepareDatabase(binaries: TemporalServerBinaries, admin: URL, database: string, schema: 'temporal' | 'visibility'): void {
  const created = sqlTool(binaries, admin, database, 'create-database');
  const versioned = path.join(binaries.schemaDir, schema, 'versioned');
  if (created.ok) {
    const setup = sqlTool(binaries, admin, database, 'setup-schema', '-v', '0.0');
    if (!setup.ok) throw new Error(`temporal-sql-tool setup-schema on ${database} failed: ${setup.output.slice(-2000)}`);
  } else if (!/already exists/i.test(created.output)) {
    throw new Error(`temporal-sql-tool create-database ${database} failed: ${created.output.slice(-2000)}`);
  }
  const update = sqlTool(binaries, admin, database, 'update-schema', '-d', versioned);
  if (!update.ok) throw new Error(`temporal-sql-tool update-schema on ${database} failed: ${update.output.slice(-2000)}`);
}

function datastore(admin: URL, database: string, maxConns: number): string {
  return [
    `      sql:`,
    `        pluginName: postgres12`,
    `        databaseName: ${JSON.stringify(database)}`,
    `        connectAddr: ${JSON.stringify(`${admin.hostname}:${admin.port || '5432'}`)}`,
    `        connectProtocol: tcp`,
    `        user: ${JSON.stringify(decodeURIComponent(admin.username))}`,
    `        password: ${JSON.stringify(decodeURIComponent(admin.password))}`,
    `        maxConns: ${maxConns}`,
    `        maxIdleConns: ${maxConns}`,
    `        maxConnLifetime: 1h`,
  ].join('\n');
}

/** The server's configuration: the shape of the module's config/development-postgres12.yaml, without archival or metrics. */
function configYaml(admin: URL, prefix: string, ports: Ports, dynamicConfig: string): string {
  const services = SERVICES.map((service) =>
    [
      `  ${service}:`,
      `    rpc:`,
      `      grpcPort: ${ports[service].grpc}`,
      `      membershipPort: ${ports[service].membership}`,
      `      bindOnLocalHost: true`,
    ].join('\n'),
  ).join('\n');
  return `log:
  stdout: true
  level: warn
persistence:
  defaultStore: postgres-default
  visibilityStore: postgres-visibility
  numHistoryShards: 4
  datastores:
    postgres-default:
${datastore(admin, prefix, 20)}
    postgres-visibility:
${datastore(admin, `${prefix}_visibility`, 4)}
global:
  membership:
    maxJoinDuration: 30s
    broadcastAddress: "127.0.0.1"
services:
${services}
clusterMetadata:
  enableGlobalNamespace: false
  failoverVersionIncrement: 10
  masterClusterName: active
  currentClusterName: active
  clusterInformation:
    active:
      enabled: true
      initialFailoverVersion: 1
      rpcName: frontend
      rpcAddress: "127.0.0.1:${ports.frontend.grpc}"
dcRedirectionPolicy:
  policy: noop
dynamicConfigClient:
  filepath: ${JSON.stringify(dynamicConfig)}
  pollInterval: 60s
`;
}

/** The dev server's tuning (dev/temporal-dev-server.ts), as the server's dynamic-config file. */
function dynamicConfigYaml(): string {
  return Object.entries(tuningValues())
    .map(([key, value]) => `${key}:\n  - value: ${JSON.stringify(value)}`)
    .join('\n')
    .concat('\n');
}

/**
 * A namespace just registered, and search attributes just added, reach the frontend's caches some
 * seconds later; until then a start naming them is refused. Waits until a start with every attribute
 * is taken (the probe run is terminated at once; nothing polls its queue).
 */
async function waitUntilUsable(address: string, namespace: string, exited: () => boolean): Promise<void> {
  let connected: Connection | undefined;
  await waitFor(
    async () => {
      if (exited()) throw new Error('the Temporal server exited');
      connected = await Connection.connect({ address, connectTimeout: '2 seconds' }).catch(() => undefined);
      return connected !== undefined;
    },
    90_000,
    'The Temporal server on PostgreSQL to answer',
  );
  const connection = connected!;
  try {
    const described = await connection.workflowService.describeNamespace({ namespace }).catch(() => undefined);
    if (!described) {
      await connection.workflowService.registerNamespace({ namespace, workflowExecutionRetentionPeriod: msToTs('3 days') });
    }
    const client = new Client({ connection, namespace });
    let attempt = 0;
    await waitFor(
      async () => {
        try {
          await registerSearchAttributes(connection, namespace);
          const handle = await client.workflow.start('probe', {
            taskQueue: 'temporal-postgres-probe',
            workflowId: `probe-${Date.now()}-${++attempt}`,
            typedSearchAttributes: searchAttributes('session', { sessionId: 'probe', agentId: 'probe', userId: 'probe' }),
          });
          await handle.terminate('probe');
          return true;
        } catch {
          return false;
        }
      },
      90_000,
      `namespace ${namespace} with the search attributes ${SEARCH_ATTRIBUTES.map((attribute) => attribute.name).join(', ')}`,
    );
  } finally {
    await connection.close();
  }
}

export async function startPostgresTemporal(options: PostgresTemporalOptions): Promise<RunningTemporal> {
  const say = options.log ?? (() => undefined);
  const binaries = await obtainTemporalServer(say);
  const admin = new URL(options.adminUrl);
  prepareDatabase(binaries, admin, options.databasePrefix, 'temporal');
  prepareDatabase(binaries, admin, `${options.databasePrefix}_visibility`, 'visibility');

  const frontend = options.port ?? (await freePortSet());
  const ports = portsFrom(frontend);
  const configDir = path.join(options.dir, 'config');
  fs.mkdirSync(configDir, { recursive: true });
  const dynamicConfig = path.join(configDir, 'dynamic.yaml');
  fs.writeFileSync(dynamicConfig, dynamicConfigYaml());
  fs.writeFileSync(path.join(configDir, 'development.yaml'), configYaml(admin, options.databasePrefix, ports, dynamicConfig), {
    mode: 0o600,
  });

  const logFile = path.join(options.dir, 'server.log');
  const log = fs.openSync(logFile, 'a');
  const child = spawn(binaries.server, ['--root', options.dir, '--config', 'config', '--env', 'development', '--allow-no-auth', 'start'], {
    stdio: ['ignore', log, log],
  });
  fs.closeSync(log);
  const server = serverProcess(child);
  const address = `127.0.0.1:${frontend}`;
  const tail = () => fs.readFileSync(logFile, 'utf8').slice(-3000);
  try {
    await waitFor(
      async () => {
        if (server.exited()) throw new Error(`the Temporal server exited: ${tail()}`);
        return canConnect(frontend);
      },
      90_000,
      'The Temporal server on PostgreSQL',
    );
    await waitUntilUsable(address, options.namespace, server.exited).catch((error: unknown) => {
      throw new Error(`${String(error)}: ${tail()}`);
    });
  } catch (error) {
    child.kill('SIGKILL');
    await server.stop();
    throw error;
  }
  say(`Temporal on PostgreSQL at ${address} (databases ${options.databasePrefix}, ${options.databasePrefix}_visibility; log ${logFile})`);
  return {
    address,
    uiUrl: undefined,
    pid: child.pid,
    stop: async () => {
      await server.stop();
      if (options.dropDatabasesOnStop) await dropDatabases(admin, [options.databasePrefix, `${options.databasePrefix}_visibility`]);
    },
  };
}

/** Drops databases the stopped server used (FORCE: a connection it left open does not keep them). */
async function dropDatabases(admin: URL, databases: string[]): Promise<void> {
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    for (const database of databases) await client.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(database)} WITH (FORCE)`);
  } finally {
    await client.end();
  }
}
