// `npm start` as a newcomer meets it: it comes up, prints the admin key once, serves the API and
// the Temporal Web UI, and keeps every key across a SIGKILL of the launcher and a restart.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, expect, test } from 'vitest';
import { canConnect, waitFor } from '../../dev/ports.ts';
import { pickLauncherPorts, startLauncher, type LauncherPorts, type RunningLauncher } from '../helpers/launcher.ts';
import { call } from '../helpers/request.ts';

// Under /tmp so that, as root, the `postgres` user can reach it.
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-service-launcher-'));
fs.chmodSync(scratch, 0o755);
let launcher: RunningLauncher | undefined;

afterEach(async () => {
  launcher?.process.kill('SIGTERM');
  await launcher?.exited;
  launcher = undefined;
});
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

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
  const adminKey = /ADMIN_API_KEY=(sk_[0-9a-z]+)/.exec(firstOutput)?.[1];
  expect(adminKey).toBeDefined();

  expect((await call(`${base}/auth/health`)).body).toMatchObject({ ok: true });
  expect((await fetch(`http://127.0.0.1:${ports.ui}/`)).status).toBe(200);

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
  const dataDir = path.join(scratch, 'lock');
  const ports = await pickLauncherPorts();
  launcher = startLauncher(dataDir, ports);
  await launcher.waitForOutput(/ready\. Ctrl-C stops everything/, 150_000);
  const second = startLauncher(dataDir, await pickLauncherPorts());
  const code = await second.exited;
  expect(code).not.toBe(0);
  expect(second.output()).toContain('Another launcher');
  expect((await call(`http://127.0.0.1:${ports.api}/auth/health`)).status).toBe(200);
});
