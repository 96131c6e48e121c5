// Which revision serves, from the built `agent-service` binary against the real service (fake model):
// `deploy --stage` stores a revision that a `send`/`chat --revision` can try before `promote`; `traffic`
// gives it a share of new sessions and ends the canary; `rollback` returns to the revision before; and
// `agents revisions` shows each revision's state and share with the changes, by key, newest first.
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect } from 'vitest';
import { agentTest } from '../helpers/harness/fixtures.ts';
import type { AgentEnv } from '../helpers/harness/agent-env.ts';
import { messageText } from '../helpers/fakes/fake-model.ts';
import { call } from '../helpers/client/request.ts';
import { ensureBuilt, loginWith, newConfigDir, runCli, type CliResult } from './run-cli.ts';

const test = agentTest();

beforeAll(() => ensureBuilt());

const FAKE_MODEL = { providerId: 'openai-compatible', modelId: 'fake-model' };

const uniqueName = () => `cli-rev-${crypto.randomUUID().slice(0, 8)}`;

/** A logged-in config directory whose `service.jsonc` is an agent with these instructions. */
async function workspace(env: AgentEnv, name: string, instructions: string): Promise<string> {
  const configDir = newConfigDir();
  await loginWith(configDir, env.api.url, env.user.apiKey);
  writeBundle(configDir, name, instructions);
  return configDir;
}

function writeBundle(configDir: string, name: string, instructions: string): void {
  fs.writeFileSync(path.join(configDir, 'service.jsonc'), JSON.stringify({ name, model: FAKE_MODEL, instructions }));
}

/** An agent whose revision 1 ("First.") is live and revision 2 ("Second.") staged, deployed over HTTP. */
async function stagedAgent(env: AgentEnv): Promise<string> {
  const name = uniqueName();
  for (const [instructions, query] of [
    ['First.', ''],
    ['Second.', '?stage=1'],
  ] as const) {
    const deployed = await call(`${env.api.url}/deploy${query}`, {
      headers: env.user.auth,
      json: { name, model: FAKE_MODEL, instructions },
    });
    expect(deployed.status, deployed.text).toBeLessThan(300);
  }
  return name;
}

/** The system prompt of the model's latest request: which revision's instructions ran the turn. */
function lastInstructions(env: AgentEnv): string | undefined {
  return messageText(env.fake.requests.at(-1)?.body.messages.find((message) => message.role === 'system'));
}

function ok(result: CliResult): CliResult {
  expect(result.code, result.stderr).toBe(0);
  return result;
}

describe('staged revisions', () => {
  test('deploy --stage stores a revision that is not live; send and chat --revision try it; a new name cannot be staged', async ({
    env,
  }) => {
    const name = uniqueName();
    const configDir = await workspace(env, name, 'First.');
    // An agent's first revision must be live: staging a new name is refused, and nothing is deployed.
    const refused = await runCli(['deploy', '--stage'], { configDir });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/\(409/);
    expect((await runCli(['agents', 'show', name], { configDir })).code).toBe(1);

    expect(ok(await runCli(['deploy'], { configDir })).stdout).toContain(`Deployed ${name} revision 1`);
    writeBundle(configDir, name, 'Second.');
    const staged = ok(await runCli(['deploy', '--stage'], { configDir }));
    expect(staged.stdout).toBe(`Staged revision 2 of ${name} (live: 1)\n`);
    expect(staged.stderr).toContain(`agent-service promote ${name} 2`);
    writeBundle(configDir, name, 'Third.');
    expect(JSON.parse(ok(await runCli(['deploy', '--stage', '--json'], { configDir })).stdout)).toMatchObject({
      ok: true,
      name,
      revision: 3,
      liveRevision: 1,
    });
    const shown = ok(await runCli(['agents', 'show', name], { configDir })).stdout;
    expect(shown).toMatch(/revision:\s+1\n/);
    expect(shown).toMatch(/latest:\s+3\n/);

    // A new session starts on the live revision, unless --revision pins it to another.
    env.fake.enqueue({ text: 'from one' });
    expect(ok(await runCli(['send', name, 'hi'], { configDir })).stdout).toBe('from one\n');
    expect(lastInstructions(env)).toContain('First.');
    env.fake.enqueue({ text: 'from two' });
    const pinned = ok(await runCli(['send', name, '--revision', '2', 'hi'], { configDir }));
    expect(pinned.stdout).toBe('from two\n');
    expect(lastInstructions(env)).toContain('Second.');
    const sessionId = /session (ses_\S+)/.exec(pinned.stderr)![1]!;
    expect(JSON.parse(ok(await runCli(['sessions', 'show', sessionId, '--json'], { configDir })).stdout)).toMatchObject({ revision: 2 });
    env.fake.enqueue({ text: 'from three' });
    expect(ok(await runCli(['chat', name, '--revision', '3'], { configDir, input: 'hi\n' })).stdout).toBe('from three\n');
    expect(lastInstructions(env)).toContain('Third.');

    // A session keeps its revision, so --revision with --session is a wrong command line, as is a revision that is no number.
    expect((await runCli(['send', '--session', sessionId, '--revision', '3', 'hi'], { configDir })).code).toBe(2);
    expect((await runCli(['send', name, '--revision', 'two', 'hi'], { configDir })).code).toBe(2);
    // A revision that does not exist is the service's 404.
    expect((await runCli(['send', name, '--revision', '9', 'hi'], { configDir })).code).toBe(1);
  });

  test('traffic gives a staged revision a share of new sessions, shows the shares, and ends the canary', async ({ env }) => {
    const name = await stagedAgent(env);
    const configDir = await workspace(env, name, 'unused');

    const canary = ok(await runCli(['traffic', name, '2=25'], { configDir }));
    expect(canary.stdout).toMatch(/^REVISION\s+STATE\s+NEW SESSIONS\n1\s+live\s+75%\n2\s+canary\s+25%\n$/);
    const listed = ok(await runCli(['agents', 'revisions', name], { configDir })).stdout;
    expect(listed).toMatch(/^2\s+canary\s+25%\s/m);
    expect(listed).toMatch(/^1\s+live\s+75%\s/m);
    expect(ok(await runCli(['agents', 'show', name], { configDir })).stdout).toMatch(/traffic:\s+2:25%\n/);

    // Wrong shares never reach the service (exit 2); the service refuses the live revision (exit 1).
    for (const args of [['2=abc'], ['2=101'], ['two=5'], ['2=5', '2=6'], ['--clear', '2=5']])
      expect((await runCli(['traffic', name, ...args], { configDir })).code, args.join(' ')).toBe(2);
    const live = await runCli(['traffic', name, '1=10', '--json'], { configDir });
    expect(live.code).toBe(1);
    expect(JSON.parse(live.stdout)).toMatchObject({ error: { status: 400 } });
    expect(ok(await runCli(['agents', 'revisions', name], { configDir })).stdout).toMatch(/^2\s+canary\s+25%\s/m);

    // Without pairs it only shows the shares; --clear ends the canary: the live revision gets every new session.
    expect(JSON.parse(ok(await runCli(['traffic', name, '--json'], { configDir })).stdout)).toEqual({ live: 1, traffic: { '2': 25 } });
    expect(ok(await runCli(['traffic', name], { configDir })).stdout).toMatch(
      /^REVISION\s+STATE\s+NEW SESSIONS\n1\s+live\s+75%\n2\s+canary\s+25%\n$/,
    );
    const cleared = ok(await runCli(['traffic', name, '--clear'], { configDir }));
    expect(cleared.stdout).toMatch(/^REVISION\s+STATE\s+NEW SESSIONS\n1\s+live\s+100%\n$/);
    expect(cleared.stderr).toContain('no canary');
    // Ended, the canary's revision has served sessions: retired, not staged.
    expect(ok(await runCli(['agents', 'revisions', name], { configDir })).stdout).toMatch(/^2\s+retired\s+-\s/m);
    expect(JSON.parse(ok(await runCli(['traffic', name, '--json'], { configDir })).stdout)).toEqual({ live: 1, traffic: {} });
  });

  test('promote and rollback change the live revision; agents revisions lists the states and the changes by key', async ({ env }) => {
    const name = await stagedAgent(env);
    const configDir = await workspace(env, name, 'unused');

    expect(ok(await runCli(['promote', name, '2'], { configDir })).stderr).toContain(`${name}: revision 2 is live (was 1).`);
    // Promoting the live revision changes nothing and records nothing.
    expect(ok(await runCli(['promote', name, '2'], { configDir })).stderr).toContain('was live already');
    expect(JSON.parse(ok(await runCli(['promote', name, '2', '--json'], { configDir })).stdout)).toEqual({
      live: 2,
      changed: false,
      change: null,
    });
    expect((await runCli(['promote', name, '7'], { configDir })).code).toBe(1);
    expect((await runCli(['promote', name, 'latest'], { configDir })).code).toBe(2);

    expect(ok(await runCli(['rollback', name], { configDir })).stderr).toContain(`${name}: rolled back to revision 1 (was 2).`);

    const listed = ok(await runCli(['agents', 'revisions', name], { configDir })).stdout;
    expect(listed).toMatch(/^REVISION\s+STATE\s+TRAFFIC\s+CREATED\s+WARNINGS\n2\s+retired\s+-\s.+\n1\s+live\s+100%\s/m);
    // The changes, newest first, each with the live revision before and after and the key that made it.
    const changes = listed.slice(listed.indexOf('Changes'));
    const key = env.user.keyId;
    expect(changes).toMatch(/^KIND\s+REVISION\s+LIVE\s+TRAFFIC\s+KEY\s+WHEN$/m);
    const rows = changes
      .split('\n')
      .slice(2)
      .filter(Boolean)
      .map((row) => row.split(/\s{2,}/).slice(0, 5));
    expect(rows).toEqual([
      ['rolled_back', '1', '2 -> 1', '-', key],
      ['promoted', '2', '1 -> 2', '-', key],
      ['staged', '2', '1', '-', key],
      ['deployed', '1', '- -> 1', '-', key],
    ]);
    const json = JSON.parse(ok(await runCli(['agents', 'revisions', name, '--json'], { configDir })).stdout) as {
      live: number;
      revisions: Array<{ revision: number; state: string }>;
      changes: Array<{ kind: string }>;
    };
    expect(json.live).toBe(1);
    expect(json.revisions.map(({ revision, state }) => [revision, state])).toEqual([
      [2, 'retired'],
      [1, 'live'],
    ]);
    expect(json.changes.map((change) => change.kind)).toEqual(['rolled_back', 'promoted', 'staged', 'deployed']);
  });

  test('rollback with no revision live before exits 1 with the service’s reason', async ({ env }) => {
    const { name } = await env.deploy();
    const configDir = await workspace(env, name, 'unused');
    const refused = await runCli(['rollback', name], { configDir });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/\(409/);
  });
});
