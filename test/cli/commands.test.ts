// The built `agent-service` binary against the real service (fake model): login by key, deploy with
// located errors, a streamed send, events --follow, a custom command, secrets from stdin, --json and
// the exit codes scripts rely on.
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect } from 'vitest';
import { agentTest } from '../helpers/harness/fixtures.ts';
import { lastUserText } from '../helpers/fakes/fake-model.ts';
import { ensureBuilt, loginWith, newConfigDir, outcome, runCli, startCli } from './run-cli.ts';

const test = agentTest();

beforeAll(() => ensureBuilt());

describe('the command line itself', () => {
  test('--help with examples, --version, and exit 2 for a wrong command line', async () => {
    const configDir = newConfigDir();
    const help = await runCli(['--help'], { configDir });
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Examples:');
    const sendHelp = await runCli(['send', '--help'], { configDir });
    expect(sendHelp.code).toBe(0);
    expect(sendHelp.stdout).toMatch(/Examples:\n\s+\$ agent-service send/);
    const version = await runCli(['--version'], { configDir });
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
    expect((await runCli(['no-such-command', '--x'], { configDir })).code).toBe(2);
    expect((await runCli(['agents', 'ls', '--no-such-option'], { configDir })).code).toBe(2);
    expect((await runCli(['send'], { configDir })).code).toBe(2);
    expect((await runCli(['send', 'helper'], { configDir, input: '' })).code).toBe(2);
  });

  test('a command needing a login says so and exits 1', async () => {
    const result = await runCli(['agents', 'ls'], { configDir: newConfigDir() });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('Not logged in');
  });
});

describe('login by key', () => {
  test('keeps the key in a 0600 profile, whoami names it, a refused key exits 1', async ({ env }) => {
    const configDir = newConfigDir();
    await loginWith(configDir, env.api.url, env.user.apiKey);
    const file = path.join(configDir, 'config.json');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    const whoami = await runCli(['whoami', '--json'], { configDir });
    expect(whoami.code).toBe(0);
    const me = JSON.parse(whoami.stdout) as { url: string; key: { prefix: string; scopes: string[] } };
    expect(me.url).toBe(env.api.url);
    expect(env.user.apiKey.startsWith(me.key.prefix)).toBe(true);

    const refused = await runCli(['login', '--key', 'sk_not_a_real_key_at_all_0000000000', '--url', env.api.url, '--profile', 'other'], {
      configDir,
    });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('refused this key');
    const other = await runCli(['whoami', '--profile', 'other'], { configDir });
    expect(other.code).toBe(1);

    const logout = await runCli(['logout'], { configDir });
    expect(logout.code).toBe(0);
    expect((await runCli(['whoami'], { configDir })).code).toBe(1);
  });
});

describe('deploy', () => {
  test('an error is shown at its line and column with the line and a caret, and nothing is deployed', async ({ env }) => {
    const configDir = newConfigDir();
    await loginWith(configDir, env.api.url, env.user.apiKey);
    const name = `cli-bad-${Date.now().toString(36)}`;
    const text = [
      '// an agent with a typo in its tool servers',
      '{',
      `  "name": "${name}",`,
      '  "model": { "providerId": "openai-compatible", "modelId": "fake-model" },',
      '  "mcps": ["time", "tiem"],',
      '}',
      '',
    ].join('\n');
    fs.writeFileSync(path.join(configDir, 'service.jsonc'), text);
    const result = await runCli(['deploy'], { configDir });
    expect(result.code).toBe(1);
    const lines = result.stderr.split('\n');
    const at = lines.findIndex((line) => line.startsWith('service.jsonc:5:20  /mcps/1'));
    expect(at, result.stderr).toBeGreaterThanOrEqual(0);
    expect(lines[at + 1]).toBe('  5 |   "mcps": ["time", "tiem"],');
    expect(lines[at + 2]).toBe(`    | ${' '.repeat(19)}^`);
    const listed = JSON.parse((await runCli(['agents', 'ls', '--json'], { configDir })).stdout) as Array<{ name: string }>;
    expect(listed.map((agent) => agent.name)).not.toContain(name);
  });

  test('a syntax error is located too, and --json gives the errors with line and column', async ({ env }) => {
    const configDir = newConfigDir();
    await loginWith(configDir, env.api.url, env.user.apiKey);
    fs.writeFileSync(path.join(configDir, 'broken.jsonc'), '{\n  "name": "x"\n  "model": {}\n}\n');
    const result = await runCli(['deploy', 'broken.jsonc', '--json'], { configDir });
    expect(result.code).toBe(1);
    const body = JSON.parse(result.stdout) as { ok: boolean; errors: Array<{ line: number; column: number; message: string }> };
    expect(body.ok).toBe(false);
    expect(body.errors[0]).toMatchObject({ line: 3, column: 3, message: 'comma expected' });
  });

  test('skills are read from disk into workspaceFiles; the revision and trigger URLs are printed', async ({ env }) => {
    const configDir = newConfigDir();
    await loginWith(configDir, env.api.url, env.user.apiKey);
    const name = `cli-ok-${Date.now().toString(36)}`;
    fs.mkdirSync(path.join(configDir, 'skills/triage'), { recursive: true });
    fs.writeFileSync(path.join(configDir, 'skills/triage/SKILL.md'), '---\ndescription: Sort tickets\n---\nUrgent first.');
    fs.mkdirSync(path.join(configDir, 'docs'));
    fs.writeFileSync(path.join(configDir, 'docs/refunds.md'), '# Refunds\nWithin 30 days.');
    fs.writeFileSync(
      path.join(configDir, 'service.jsonc'),
      JSON.stringify({
        name,
        model: { providerId: 'openai-compatible', modelId: 'fake-model' },
        skills: ['triage', { name: 'refunds', path: 'docs/refunds.md' }],
        triggers: [{ kind: 'webhook', suffix: 'inbox' }],
      }),
    );
    const dry = await runCli(['deploy', '--dry-run', '--json'], { configDir });
    expect(dry.code, dry.stderr).toBe(0);
    expect(JSON.parse(dry.stdout)).toMatchObject({ ok: true, dryRun: true, inlined: ['skills/triage/SKILL.md', 'docs/refunds.md'] });

    const result = await runCli(['deploy'], { configDir });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(`Deployed ${name} revision 1`);
    expect(result.stdout).toMatch(new RegExp(`webhook  POST ${env.api.url}/trigger/.+/inbox`));
    const shown = JSON.parse((await runCli(['agents', 'show', name, '--json'], { configDir })).stdout) as {
      bundle: { workspaceFiles: Record<string, string> };
    };
    expect(shown.bundle.workspaceFiles).toEqual({
      'skills/triage/SKILL.md': '---\ndescription: Sort tickets\n---\nUrgent first.',
      'docs/refunds.md': '# Refunds\nWithin 30 days.',
    });
    expect((await runCli(['deploy'], { configDir })).stdout).toContain('revision 2');
  });
});

describe('send and events', () => {
  test('send streams the reply to stdout and exits 0; a failed turn exits 3', async ({ env }) => {
    const configDir = newConfigDir();
    await loginWith(configDir, env.api.url, env.user.apiKey);
    const { name } = await env.deploy();
    env.fake.enqueue({ text: 'Paris is the capital of France.', chunkDelayMs: 5 });
    const sent = await runCli(['send', name, 'What', 'is', 'the', 'capital?'], { configDir });
    expect(sent.code, sent.stderr).toBe(0);
    expect(sent.stdout).toBe('Paris is the capital of France.\n');
    expect(sent.stderr).toMatch(/session ses_/);

    env.fake.enqueue({ status: 400, errorBody: { error: { message: 'bad request to the model' } } });
    const failed = await runCli(['send', name, 'fail please'], { configDir });
    expect(failed.code).toBe(3);
    expect(failed.stderr).toContain('the turn failed');
  });

  test('send --json prints one parseable event per line, ending with the turn', async ({ env }) => {
    const configDir = newConfigDir();
    await loginWith(configDir, env.api.url, env.user.apiKey);
    const { name } = await env.deploy();
    env.fake.enqueue({ text: 'one two three' });
    const sent = await runCli(['send', name, 'count', '--json'], { configDir });
    expect(sent.code, sent.stderr).toBe(0);
    const events = sent.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; delta?: string });
    expect(events.at(-1)?.type).toBe('turn.completed');
    expect(
      events
        .filter((event) => event.type === 'message.part.delta')
        .map((event) => event.delta)
        .join(''),
    ).toBe('one two three');
  });

  test('send --async, then events --follow prints the turn live and returns once it ends', async ({ env }) => {
    const configDir = newConfigDir();
    await loginWith(configDir, env.api.url, env.user.apiKey);
    const sessionId = await env.newSession();
    env.fake.enqueue({ text: 'slow words arriving one by one', chunkDelayMs: 100 });
    const accepted = await runCli(['send', '--session', sessionId, 'go', '--async', '--json'], { configDir });
    expect(accepted.code, accepted.stderr).toBe(0);
    expect(JSON.parse(accepted.stdout)).toMatchObject({ sessionId, messageId: expect.stringMatching(/^msg_/) });

    const followed = await outcome(startCli(['events', sessionId, '--follow', '--json'], { configDir }));
    expect(followed.code, followed.stderr).toBe(0);
    const types = followed.stdout
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as { type: string }).type);
    expect(types.at(-1)).toBe('turn.completed');
    expect(types).toContain('message.part.delta');

    const after = await runCli(['events', sessionId, '--after', '2'], { configDir });
    expect(after.code).toBe(0);
    expect(after.stdout.split('\n')[0]).toMatch(/^\s+3 /);
  });
});

describe('chat from a script', () => {
  test('lines piped into chat are sent one after the other, the replies printed, and it ends with its input', async ({ env }) => {
    const configDir = newConfigDir();
    await loginWith(configDir, env.api.url, env.user.apiKey);
    const { name } = await env.deploy();
    env.fake.enqueue({ text: 'First reply.' }, { text: 'Second reply.' });
    const chat = await runCli(['chat', name], { configDir, input: 'one\ntwo\n' });
    expect(chat.code, chat.stderr).toBe(0);
    expect(chat.stdout).toBe('First reply.\nSecond reply.\n');
    expect(env.fake.requests.slice(-2).map((request) => lastUserText(request))).toEqual(['one', 'two']);
  });
});

describe('custom commands', () => {
  test('positional and flag placeholders resolved by the shared resolver; --help lists them; a missing flag exits 2', async ({ env }) => {
    const configDir = newConfigDir();
    await loginWith(configDir, env.api.url, env.user.apiKey);
    const { name } = await env.deploy({ command: { review: { template: 'Review ${1} against ${2} in a ${tone} tone' } } });
    env.fake.enqueue({ text: 'Looks good.' });
    const ran = await runCli(['run', name, 'review', 'pr-12', 'main', '--tone', 'kind'], { configDir });
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stdout).toBe('Looks good.\n');
    expect(lastUserText(env.fake.requests.at(-1)!)).toBe('Review pr-12 against main in a kind tone');

    env.fake.enqueue({ text: 'Shorthand works.' });
    const shorthand = await runCli([name, 'review', 'pr-13', 'dev', '--tone=firm', '--json'], { configDir });
    expect(shorthand.code, shorthand.stderr).toBe(0);
    const events = shorthand.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; delta?: string });
    expect(events.at(-1)?.type).toBe('turn.completed');
    expect(events.map((event) => event.delta ?? '').join('')).toBe('Shorthand works.');
    expect(lastUserText(env.fake.requests.at(-1)!)).toBe('Review pr-13 against dev in a firm tone');

    const help = await runCli(['run', name, 'review', '--help'], { configDir });
    expect(help.code).toBe(0);
    expect(help.stdout).toContain(`Usage: agent-service run ${name} review <1> <2> --tone <tone>`);
    expect(help.stdout).toMatch(/\$\{1\}\s+argument 1/);
    expect(help.stdout).toMatch(/\$\{tone\}\s+the flag --tone <value>/);

    const requests = env.fake.requests.length;
    const missing = await runCli(['run', name, 'review', 'pr-14', 'main'], { configDir });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('flag --tone is missing');
    expect(env.fake.requests.length).toBe(requests);
  });
});

describe('secrets', () => {
  test('secrets set reads the value from stdin; ls lists the name, never the value', async ({ env }) => {
    const configDir = newConfigDir();
    await loginWith(configDir, env.api.url, env.user.apiKey);
    const key = `CLI_TOKEN_${Date.now().toString(36).toUpperCase()}`;
    const set = await runCli(['secrets', 'set', key], { configDir, input: 's3cret-value\n' });
    expect(set.code, set.stderr).toBe(0);
    const listed = await runCli(['secrets', 'ls', '--json'], { configDir });
    const secrets = JSON.parse(listed.stdout) as Array<{ key: string }>;
    expect(secrets.map((secret) => secret.key)).toContain(key);
    expect(listed.stdout).not.toContain('s3cret-value');
    expect((await runCli(['secrets', 'rm', key], { configDir })).code).toBe(0);
  });

  test('secrets set --host names where tools may send it; a new value keeps them; --no-hosts clears them', async ({ env }) => {
    const configDir = newConfigDir();
    await loginWith(configDir, env.api.url, env.user.apiKey);
    const key = `CLI_HOSTED_${Date.now().toString(36).toUpperCase()}`;
    const hostsOf = async () => {
      const listed = await runCli(['secrets', 'ls', '--json'], { configDir });
      return (JSON.parse(listed.stdout) as Array<{ key: string; hosts: string[] }>).find((secret) => secret.key === key)?.hosts;
    };
    const set = await runCli(['secrets', 'set', key, '--host', 'api.github.com', '--host', '*.example.com'], { configDir, input: 'v1\n' });
    expect(set.code, set.stderr).toBe(0);
    expect(set.stderr + set.stdout).toContain('tools may send it to api.github.com, *.example.com');
    expect(await hostsOf()).toEqual(['api.github.com', '*.example.com']);
    expect((await runCli(['secrets', 'set', key], { configDir, input: 'v2\n' })).code).toBe(0);
    expect(await hostsOf()).toEqual(['api.github.com', '*.example.com']);
    expect((await runCli(['secrets', 'set', key, '--no-hosts'], { configDir, input: 'v3\n' })).code).toBe(0);
    expect(await hostsOf()).toEqual([]);
    const refused = await runCli(['secrets', 'set', key, '--host', 'https://api.github.com'], { configDir, input: 'v4\n' });
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/hosts/);
  });
});
