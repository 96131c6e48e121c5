// `npm start` as a newcomer meets it: it comes up, prints the admin key once, serves the API and
// the Temporal Web UI, and keeps every key across a SIGKILL of the launcher and a restart. Ctrl-C
// and `npm start` at once brings it back every time; npm returns only once every child has
// stopped; a stop during start-up leaves nothing behind; a dead launcher never blocks the next.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, expect, inject, test } from 'vitest';
import { canConnect, waitFor } from '../../dev/ports.ts';
import {
  READY,
  launcherEnv,
  pickLauncherPorts,
  startLauncher,
  watchLauncher,
  type LauncherPorts,
  type RunningLauncher,
  withWorkflowBundle,
} from '../helpers/harness/launcher.ts';
import { descendantsOf, isRunning, processState, type ProcessInfo } from '../helpers/harness/processes.ts';
import { call } from '../helpers/client/request.ts';

// Under /tmp so that, as root, the `postgres` user can reach it.
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-service-launcher-'));
fs.chmodSync(scratch, 0o755);
let launcher: RunningLauncher | undefined;
/** Everything else a test started, stopped after it whatever happened. */
const started: Array<RunningLauncher | ChildProcess> = [];

afterEach(async () => {
  launcher?.process.kill('SIGTERM');
  await launcher?.exited;
  launcher = undefined;
  for (const item of started.splice(0).reverse()) {
    if ('interrupt' in item) {
      item.interrupt('SIGTERM');
      await item.exited;
    } else {
      item.kill('SIGKILL');
    }
  }
});
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

/**
 * A DATA_DIR holding the run's workflow bundle, which its worker loads rather than running webpack. Only the
 * first test starts as a newcomer does, with an empty DATA_DIR whose first start bundles.
 */
const dataDirWithBundle = (name: string) => withWorkflowBundle(path.join(scratch, name));

/**
 * The tests' PostgreSQL and Temporal, so that a start runs only the API and the worker; a task queue
 * of its own, so that its worker takes no other test's tasks.
 */
function sharedServers(): Record<string, string> {
  return { DATABASE_URL: inject('databaseUrl'), TEMPORAL_ADDRESS: inject('temporalAddress'), TASK_QUEUE: `launcher-${randomUUID()}` };
}

function npmStart(dataDir: string, ports: LauncherPorts, env: Record<string, string> = {}): RunningLauncher {
  const running = startLauncher(dataDir, ports, env, { via: 'npm' });
  started.push(running);
  return running;
}

/**
 * What `npm start` runs, minus tsx's esbuild helpers: those hold nothing, end by themselves when the
 * process that started them has gone, and may outlive it by a few milliseconds.
 */
function treeOf(running: RunningLauncher): ProcessInfo[] {
  return descendantsOf(running.process.pid!).filter((info) => !/\/esbuild /.test(info.command));
}

/** The processes of `tree` still running at the moment `running` (npm) has exited. */
function leftAtExit(running: RunningLauncher, tree: ProcessInfo[]): Promise<ProcessInfo[]> {
  return new Promise((resolve) => running.process.once('exit', () => resolve(tree.filter(isRunning))));
}

const named = (tree: ProcessInfo[], pattern: RegExp) => tree.filter((info) => pattern.test(info.command));

async function allClosed(ports: LauncherPorts): Promise<boolean> {
  const open = await Promise.all(Object.values(ports).map((port) => canConnect(port)));
  return open.every((isOpen) => !isOpen);
}

test('start, use, SIGKILL, start again: everything is kept; SIGTERM stops every part', { timeout: 240_000 }, async () => {
  const dataDir = path.join(scratch, 'restart');
  const ports = await pickLauncherPorts();
  const base = `http://127.0.0.1:${ports.api}`;

  launcher = startLauncher(dataDir, ports);
  const firstOutput = await launcher.waitForOutput(/ready\. Ctrl-C stops everything/, 150_000);
  expect(firstOutput).toContain(`API:             ${base}`);
  expect(firstOutput).toContain(`Temporal Web UI: http://127.0.0.1:${ports.ui}`);
  // The Temporal CLI it runs the dev server with, named so a user can run `temporal schedule trigger` and the like.
  const cliLine = /Temporal CLI: {4}(\S+) {3}\(--address (\S+) --namespace (\S+)\)/.exec(firstOutput);
  expect(cliLine?.slice(2)).toEqual([`127.0.0.1:${ports.temporal}`, 'default']);
  fs.accessSync(cliLine![1]!, fs.constants.X_OK);
  const adminKey = /ADMIN_API_KEY=(sk_[0-9a-z]+)/.exec(firstOutput)?.[1];
  expect(adminKey).toBeDefined();

  expect((await call(`${base}/auth/health`)).body).toMatchObject({ ok: true });
  expect((await fetch(`http://127.0.0.1:${ports.ui}/`)).status).toBe(200);
  // The dev server's SQLite file runs in WAL mode (its write-ahead log sits beside it while open); the
  // SIGKILL below then shows that a killed process loses nothing with synchronous=normal.
  expect(fs.existsSync(path.join(dataDir, 'temporal.db-wal'))).toBe(true);

  const admin = { authorization: `Bearer ${adminKey}` };
  const alice = await call<{ id: string; apiKey: string }>(`${base}/admin/users`, { headers: admin, json: { name: 'alice' } });
  expect(alice.status).toBe(201);
  const aliceAuth = { authorization: `Bearer ${alice.body.apiKey}` };
  const narrow = await call<{ id: string; key: string }>(`${base}/key`, { headers: aliceAuth, json: { name: 'reader', scopes: ['read'] } });
  expect(narrow.status).toBe(201);
  const doomed = await call<{ id: string; key: string }>(`${base}/key`, { headers: aliceAuth, json: { name: 'doomed' } });
  expect((await call(`${base}/key/${doomed.body.id}`, { method: 'DELETE', headers: aliceAuth })).status).toBe(204);
  expect((await call(`${base}/key`, { headers: { authorization: `Bearer ${doomed.body.key}` } })).status).toBe(401);
  const before = await call<{ keys: { id: string }[] }>(`${base}/key`, { headers: aliceAuth });

  // SIGKILL: the launcher gets no chance to clean up; its children must notice and stop.
  launcher.process.kill('SIGKILL');
  await launcher.exited;
  await waitFor(() => allClosed(ports), 60_000, 'every port of the killed launcher to close');

  launcher = startLauncher(dataDir, ports);
  const secondOutput = await launcher.waitForOutput(/ready\. Ctrl-C stops everything/, 150_000);
  expect(secondOutput).not.toContain('ADMIN_API_KEY=');
  expect(secondOutput).not.toContain('applied migrations');

  const after = await call<{ keys: { id: string }[] }>(`${base}/key`, { headers: { authorization: `Bearer ${narrow.body.key}` } });
  expect(after.status).toBe(200);
  expect(after.body.keys.map((key) => key.id).sort()).toEqual(before.body.keys.map((key) => key.id).sort());
  expect((await call(`${base}/key`, { headers: admin })).status).toBe(200);
  expect((await call(`${base}/key`, { headers: { authorization: `Bearer ${doomed.body.key}` } })).status).toBe(401);

  launcher.process.kill('SIGTERM');
  expect(await launcher.exited).toBe(0);
  expect(launcher.output()).toContain('[launcher] stopped');
  expect(await allClosed(ports)).toBe(true);
});

test('a second launcher on the same DATA_DIR refuses to start', { timeout: 200_000 }, async () => {
  const dataDir = dataDirWithBundle('lock');
  const ports = await pickLauncherPorts();
  launcher = startLauncher(dataDir, ports);
  await launcher.waitForOutput(/ready\. Ctrl-C stops everything/, 150_000);
  const second = startLauncher(dataDir, await pickLauncherPorts());
  const code = await second.exited;
  expect(code).not.toBe(0);
  expect(second.output()).toContain('Another launcher');
  expect((await call(`http://127.0.0.1:${ports.api}/auth/health`)).status).toBe(200);
});

test('npm start, Ctrl-C, npm start at once: every start comes up, 10 times in a row', { timeout: 900_000 }, async () => {
  const dataDir = dataDirWithBundle('cycles');
  const ports = await pickLauncherPorts();
  const env = sharedServers();
  let current = npmStart(dataDir, ports, env);
  await current.waitForOutput(READY, 150_000);
  for (let cycle = 1; cycle <= 10; cycle++) {
    const left = leftAtExit(current, treeOf(current));
    current.interrupt('SIGINT');
    const next = npmStart(dataDir, ports, env);
    await next.waitForOutput(READY, 150_000);
    expect(await current.exited).toBe(0);
    expect(await left).toEqual([]);
    expect(current.output()).toContain('[launcher] stopped');
    current = next;
  }
  expect((await call(`http://127.0.0.1:${ports.api}/auth/health`)).status).toBe(200);
});

test(
  'with the embedded servers: a start waits, saying so, for one that is stopping; npm exits only after every child',
  { timeout: 400_000 },
  async () => {
    const dataDir = dataDirWithBundle('embedded');
    const ports = await pickLauncherPorts();
    const first = npmStart(dataDir, ports);
    await first.waitForOutput(READY, 150_000);
    const firstTree = treeOf(first);
    for (const part of [
      /api\/server\.ts/,
      /workers\/main\.ts/,
      /child-postgres\.ts/,
      /bin\/postgres /,
      /child-temporal\.ts/,
      /temporal server/,
    ]) {
      expect(named(firstTree, part)).not.toEqual([]);
    }
    // The API, paused, holds the first launcher in its stopping state until the next start has seen it.
    const api = named(firstTree, /api\/server\.ts/)[0]!;
    process.kill(api.pid, 'SIGSTOP');
    const firstLeft = leftAtExit(first, firstTree);
    first.interrupt('SIGINT');
    const second = npmStart(dataDir, ports);
    await second.waitForOutput(/Another launcher \(pid \d+\) is still stopping with DATA_DIR=.*; waiting for it/, 60_000);
    process.kill(api.pid, 'SIGCONT');
    expect(await first.exited).toBe(0);
    expect(await firstLeft).toEqual([]);
    const output = await second.waitForOutput(READY, 150_000);
    expect(output.match(/waiting for it/g)).toHaveLength(1);

    // SIGTERM to the group, as `kill -TERM -<pgid>` or a process manager sends it.
    const secondTree = treeOf(second);
    const secondLeft = leftAtExit(second, secondTree);
    second.interrupt('SIGTERM');
    expect(await second.exited).toBe(0);
    expect(await secondLeft).toEqual([]);
    expect(await allClosed(ports)).toBe(true);
  },
);

/** Accepts connections and never answers: a Temporal server the worker cannot start against. */
async function silentServer(): Promise<{ address: string; connected: Promise<void>; close(): void }> {
  const sockets = new Set<net.Socket>();
  let connected!: () => void;
  const firstConnection = new Promise<void>((resolve) => (connected = resolve));
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
    connected();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    address: `127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    connected: firstConnection,
    close() {
      for (const socket of sockets) socket.destroy();
      server.close();
    },
  };
}

test('a stop while the worker is still starting leaves no process behind', { timeout: 200_000 }, async () => {
  const temporal = await silentServer();
  try {
    const ports = await pickLauncherPorts();
    const running = npmStart(path.join(scratch, 'early-stop'), ports, { ...sharedServers(), TEMPORAL_ADDRESS: temporal.address });
    // The worker is connecting to Temporal, which never answers: it is started, and cannot be ready.
    await temporal.connected;
    const tree = treeOf(running);
    expect(named(tree, /workers\/main\.ts/)).not.toEqual([]);
    const left = leftAtExit(running, tree);
    running.interrupt('SIGINT');
    expect(await running.exited).toBe(0);
    expect(await left).toEqual([]);
    expect(running.output()).not.toMatch(READY);
    expect(running.output()).not.toContain('could not start');
  } finally {
    temporal.close();
  }
});

test('a launcher killed while the worker is still starting leaves no worker behind', { timeout: 200_000 }, async () => {
  const temporal = await silentServer();
  try {
    const ports = await pickLauncherPorts();
    launcher = startLauncher(path.join(scratch, 'early-kill'), ports, { ...sharedServers(), TEMPORAL_ADDRESS: temporal.address });
    let workers: ProcessInfo[] = [];
    await waitFor(
      async () => (workers = named(descendantsOf(launcher!.process.pid!), /workers\/main\.ts/)).length > 0,
      120_000,
      'the worker process',
    );
    launcher.process.kill('SIGKILL');
    await launcher.exited;
    await waitFor(async () => !workers.some(isRunning), 30_000, 'the worker to stop');
  } finally {
    temporal.close();
  }
});

test('a launcher that died but is not yet reaped (a zombie) does not block the next start', { timeout: 300_000 }, async () => {
  const dataDir = dataDirWithBundle('zombie');
  const env = sharedServers();
  // The shell starts the launcher, then becomes `sleep`, which never reaps it.
  const parent = spawn('sh', ['-c', '"$0" --import tsx dev/main.ts & echo "launcher pid $!"; exec sleep 600', process.execPath], {
    cwd: path.resolve('.'),
    env: launcherEnv(dataDir, await pickLauncherPorts(), env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  started.push(parent);
  const dead = watchLauncher(parent);
  const output = await dead.waitForOutput(READY, 150_000);
  const pid = Number(/launcher pid (\d+)/.exec(output)![1]);
  process.kill(pid, 'SIGKILL');
  await waitFor(async () => processState(pid) === 'Z', 30_000, 'the killed launcher to be a zombie');

  const next = npmStart(dataDir, await pickLauncherPorts(), env);
  const nextOutput = await next.waitForOutput(READY, 150_000);
  expect(nextOutput).not.toContain('Another launcher');
  expect(processState(pid)).toBe('Z');
});
