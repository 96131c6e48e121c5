// `npm run api` and `npm run worker` as production runs them: configured by environment only,
// against an external PostgreSQL and Temporal, refusing to start without what production needs.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { expect, inject, test } from 'vitest';
import { freePort, waitFor } from '../../dev/ports.ts';
import { startWorkerProcess } from '../helpers/harness/worker-process.ts';
import { FIRST_ADMIN_KEY_FILE } from '../../api/first-admin-key.ts';

function run(script: string, env: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', 'tsx', script], {
    cwd: path.resolve('.'),
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, exited, output: () => output };
}

const production = () => ({
  NODE_ENV: 'production',
  DATABASE_URL: inject('databaseUrl'),
  TEMPORAL_ADDRESS: inject('temporalAddress'),
  SERVICE_MASTER_KEY: 'production-test-master-key-0123456789abcdefghij',
  ADMIN_API_KEY: '',
  LOG_LEVEL: 'info',
  // No DATA_DIR of its own here: the upload sweep must not judge .data's files by the test database.
  HOUSEKEEPING_INTERVAL_MS: '0',
});

test('the API process serves, logs JSON lines, and stops cleanly on SIGTERM', { timeout: 60_000 }, async () => {
  const port = await freePort();
  const api = run('api/server.ts', { ...production(), PORT: String(port), HOST: '127.0.0.1' });
  await waitFor(
    async () => (await fetch(`http://127.0.0.1:${port}/auth/health`).catch(() => undefined))?.status === 200,
    30_000,
    'the API',
  );
  api.child.kill('SIGTERM');
  expect(await api.exited).toBe(0);
  const lines = api
    .output()
    .split('\n')
    .filter((line) => line.startsWith('{'));
  expect(lines.length).toBeGreaterThan(0);
  expect(lines.map((line) => JSON.parse(line) as { msg: string }).map((line) => line.msg)).toEqual(
    expect.arrayContaining(['API listening', 'request']),
  );
});

test('the worker process polls and stops cleanly on SIGTERM', { timeout: 90_000 }, async () => {
  const worker = await startWorkerProcess({ ...production(), TASK_QUEUE: `prod-test-${process.pid}` });
  const exited = new Promise<number | null>((resolve) => worker.process.once('exit', (code) => resolve(code)));
  worker.process.kill('SIGTERM');
  expect(await exited).toBe(0);
});

test.each([
  ['SERVICE_MASTER_KEY', 'api/server.ts'],
  ['DATABASE_URL', 'api/server.ts'],
  ['TEMPORAL_ADDRESS', 'workers/main.ts'],
])('production refuses to start without %s', async (missing, script) => {
  const started = run(script, { ...production(), [missing]: '' });
  expect(await started.exited).toBe(1);
  expect(started.output()).toContain(missing);
});

test('the API process refuses to start with an ADMIN_API_KEY shorter than 32 characters, without echoing it', async () => {
  const started = run('api/server.ts', { ...production(), ADMIN_API_KEY: 'short-admin-key-0123' });
  expect(await started.exited).toBe(1);
  expect(started.output()).toContain('ADMIN_API_KEY must have at least 32 characters');
  expect(started.output()).not.toContain('short-admin-key-0123');
});

test(
  "a production first start puts the new admin's key in a 0600 file under DATA_DIR, never in its output",
  { timeout: 60_000 },
  async () => {
    // A database of its own: the shared test database has an admin already, and a first start needs none.
    const name = `first_start_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
    const admin = new pg.Client({ connectionString: inject('databaseUrl') });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    const url = new URL(inject('databaseUrl'));
    url.pathname = `/${name}`;
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'first-start-'));
    const port = await freePort();
    const api = run('api/server.ts', {
      ...production(),
      DATABASE_URL: url.toString(),
      DATA_DIR: dataDir,
      PORT: String(port),
      HOST: '127.0.0.1',
    });
    try {
      await waitFor(
        async () => (await fetch(`http://127.0.0.1:${port}/auth/health/live`).catch(() => undefined))?.status === 200,
        30_000,
        'the API',
      );
      const file = path.join(dataDir, FIRST_ADMIN_KEY_FILE);
      expect(fs.statSync(file).mode & 0o777).toBe(0o600);
      const key = fs.readFileSync(file, 'utf8').trim();
      expect(key).toMatch(/^sk_/);
      expect(api.output()).not.toContain(key);
      expect(api.output()).toContain(FIRST_ADMIN_KEY_FILE);
      // The key works, as an admin's.
      const created = await fetch(`http://127.0.0.1:${port}/admin/users`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'alice' }),
      });
      expect(created.status).toBe(201);
    } finally {
      api.child.kill('SIGTERM');
      await api.exited;
      fs.rmSync(dataDir, { recursive: true, force: true });
      await admin.query(`DROP DATABASE ${name}`);
      await admin.end();
    }
  },
);
