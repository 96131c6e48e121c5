// `agent-service login` without a key: the device flow. The CLI shows a code, the user approves it
// (through the API, as the dashboard does, or with `login approve` from a logged-in terminal), and
// the CLI receives a key of its own, which `logout` deletes.
import type { ChildProcess } from 'node:child_process';
import os from 'node:os';
import { beforeAll, describe, expect } from 'vitest';
import { apiTest } from '../helpers/harness/fixtures.ts';
import { call } from '../helpers/client/request.ts';
import { ensureBuilt, loginWith, newConfigDir, outcome, runCli, startCli } from './run-cli.ts';

const test = apiTest();

beforeAll(() => ensureBuilt());

/** Resolves with the user code once the CLI has printed it (on stderr). */
function userCodeOf(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let seen = '';
    child.stderr!.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      const match = /approve the code ([A-Z]{4}-[A-Z]{4})/.exec(seen);
      if (match) resolve(match[1]!);
    });
    child.on('close', () => reject(new Error(`the CLI ended without a code: ${seen}`)));
  });
}

describe('login by device flow', () => {
  test('approved through the API, the CLI gets a key named after the machine; logout deletes it', async ({ api, user }) => {
    const configDir = newConfigDir();
    const login = startCli(['login', '--url', api.url, '--json'], { configDir });
    const done = outcome(login);
    const code = await userCodeOf(login);

    const asked = await call<{ clientName: string; status: string }>(`${api.url}/device/${code}`, { headers: user.auth });
    expect(asked.body).toMatchObject({ clientName: `agent-service CLI on ${os.hostname()}`, status: 'pending' });
    const approved = await call(`${api.url}/device/${code}/approve`, { method: 'POST', headers: user.auth });
    expect(approved.status).toBe(200);

    const result = await done;
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain(`${api.url}/`);
    const profile = JSON.parse(result.stdout) as { keyId: string; minted: boolean };
    expect(profile.minted).toBe(true);

    const whoami = JSON.parse((await runCli(['whoami', '--json'], { configDir })).stdout) as { key: { id: string; name: string } };
    expect(whoami.key).toMatchObject({ id: profile.keyId, name: `agent-service CLI on ${os.hostname()}` });

    // A new login over the profile: the key minted for it before is held by nobody now, and goes.
    const again = startCli(['login', '--url', api.url, '--json'], { configDir });
    const againDone = outcome(again);
    await call(`${api.url}/device/${await userCodeOf(again)}/approve`, { method: 'POST', headers: user.auth });
    const second = JSON.parse((await againDone).stdout) as { keyId: string };
    const keyIds = async () =>
      (await call<{ keys: Array<{ id: string }> }>(`${api.url}/key`, { headers: user.auth })).body.keys.map((key) => key.id);
    expect(await keyIds()).not.toContain(profile.keyId);
    expect(await keyIds()).toContain(second.keyId);

    expect((await runCli(['logout'], { configDir })).code).toBe(0);
    expect(await keyIds()).not.toContain(second.keyId);
  });

  test('`login approve <code>` from a logged-in terminal; a denied login exits 1', async ({ api, user }) => {
    const approver = newConfigDir();
    await loginWith(approver, api.url, user.apiKey);

    const device = newConfigDir();
    const login = startCli(['login', '--url', api.url, '--scope', 'read'], { configDir: device });
    const done = outcome(login);
    const approved = await runCli(['login', 'approve', await userCodeOf(login)], { configDir: approver });
    expect(approved.code, approved.stderr).toBe(0);
    expect(approved.stderr).toContain('Approved the login of agent-service CLI on');
    expect((await done).code).toBe(0);
    const me = JSON.parse((await runCli(['whoami', '--json'], { configDir: device })).stdout) as { key: { scopes: string[] } };
    expect(me.key.scopes).toEqual(['read']);

    const denied = newConfigDir();
    const refused = startCli(['login', '--url', api.url], { configDir: denied });
    const refusedDone = outcome(refused);
    expect((await runCli(['login', 'approve', await userCodeOf(refused), '--deny'], { configDir: approver })).code).toBe(0);
    const result = await refusedDone;
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('The login was denied');
  });
});
