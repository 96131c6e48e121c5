// Every resource group of the CLI against the real service, read back through --json as a script
// would: agents, sessions (fork, revert, regenerate), uploads, approvals, runs, keys, webhooks.
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect } from 'vitest';
import { agentTest } from '../helpers/harness/fixtures.ts';
import { call } from '../helpers/client/request.ts';
import { ensureBuilt, loginWith, newConfigDir, runCli } from './run-cli.ts';

// One tenant: the prompt cache's counts are shown behind the operator's key too (docs/models.md, Caching and cost).
const test = agentTest({ SHARED_CACHE_COUNTS: 'true' });

beforeAll(() => ensureBuilt());

async function json<T>(args: string[], configDir: string): Promise<T> {
  const result = await runCli([...args, '--json'], { configDir });
  if (result.code !== 0) throw new Error(`${args.join(' ')} exited ${result.code}: ${result.stderr}`);
  return JSON.parse(result.stdout) as T;
}

describe('resources', () => {
  test('agents: list, show with its commands, revisions, budget, delete', async ({ env }) => {
    const configDir = newConfigDir();
    await loginWith(configDir, env.api.url, env.user.apiKey);
    const { name } = await env.deploy({ command: { hello: { template: 'Say hello to ${1}' } } });
    expect((await json<Array<{ name: string }>>(['agents', 'ls'], configDir)).map((agent) => agent.name)).toContain(name);
    const shown = await runCli(['agents', 'show', name], { configDir });
    expect(shown.stdout).toMatch(/Commands.*\n\s+hello <1>/);
    expect(shown.stdout).toMatch(new RegExp(`mcp:\\s+${env.api.url}/agent/${name}/mcp\\n`));
    expect(shown.stdout).toMatch(new RegExp(`a2a:\\s+${env.api.url}/agent/${name}/a2a/\\n`));
    expect((await json<{ revisions: Array<{ revision: number }> }>(['agents', 'revisions', name], configDir)).revisions).toEqual([
      expect.objectContaining({ revision: 1, state: 'live' }),
    ]);

    // A monthly budget: set, shown with this month's spend, removed; a word that is no amount is a usage error.
    expect(await json<{ monthlyUsd: number | null; spentUsd: number }>(['agents', 'budget', name, '7.50'], configDir)).toMatchObject({
      monthlyUsd: 7.5,
      spentUsd: 0,
    });
    expect((await runCli(['agents', 'budget', name, '25'], { configDir })).stderr).toMatch(
      /: \$25\.00 a month \(\$0\.00 spent in \d{4}-\d{2}\)/,
    );
    expect(await json<{ monthlyUsd: number | null }>(['agents', 'budget', name, 'none'], configDir)).toMatchObject({ monthlyUsd: null });
    const refused = await runCli(['agents', 'budget', name, 'lots'], { configDir });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('Not a budget: "lots"');

    expect((await runCli(['agents', 'rm', name], { configDir })).code).toBe(0);
    expect((await runCli(['agents', 'show', name], { configDir })).code).toBe(1);
  });

  test('sessions: list, show, fork, regenerate, revert, abort', async ({ env }) => {
    const configDir = newConfigDir();
    await loginWith(configDir, env.api.url, env.user.apiKey);
    const { name } = await env.deploy();
    env.fake.enqueue({ text: 'First answer.', usage: { promptTokens: 1200, completionTokens: 40, cacheReadTokens: 800 } });
    const sent = await runCli(['send', name, 'hi'], { configDir });
    const sessionId = /session (ses_\S+)/.exec(sent.stderr)![1]!;
    const sessions = await json<Array<{ id: string; status: string }>>(['sessions', 'ls', name], configDir);
    expect(sessions.map((session) => session.id)).toEqual([sessionId]);
    const view = await json<{ messages: Array<{ id: string; role: string }> }>(['sessions', 'show', sessionId], configDir);
    expect(view.messages.map((message) => message.role)).toEqual(['user', 'assistant']);
    const shown = (await runCli(['sessions', 'show', sessionId], { configDir })).stdout;
    expect(shown).toContain('First answer.');
    expect(shown).toMatch(/tokens:\s+1200 in \(800 from cache\), 40 out/);

    const fork = await json<{ id: string }>(['sessions', 'fork', sessionId], configDir);
    expect(fork.id).not.toBe(sessionId);

    env.fake.enqueue({ text: 'Second answer.' });
    const regenerated = await runCli(['sessions', 'regenerate', sessionId, view.messages[1]!.id], { configDir });
    expect(regenerated.code, regenerated.stderr).toBe(0);
    expect(regenerated.stdout).toBe('Second answer.\n');

    const reverted = await json<{ reverted: string[] }>(['sessions', 'revert', sessionId, view.messages[0]!.id], configDir);
    expect(reverted.reverted).toContain(view.messages[0]!.id);
    expect(await json<{ aborted: boolean }>(['sessions', 'abort', sessionId], configDir)).toEqual({ aborted: false });
  });

  test('upload and download a file of a session', async ({ env }) => {
    const configDir = newConfigDir();
    await loginWith(configDir, env.api.url, env.user.apiKey);
    const sessionId = await env.newSession();
    fs.writeFileSync(path.join(configDir, 'notes.txt'), 'line one\nline two\n');
    const media = await json<{ url: string }>(['upload', sessionId, 'notes.txt'], configDir);
    expect(media.url).toMatch(/^media\/[0-9a-f-]{36}-notes\.txt$/);
    const downloaded = await runCli(['download', sessionId, media.url, '-o', '-'], { configDir });
    expect(downloaded.stdout).toBe('line one\nline two\n');
    const saved = await runCli(['download', sessionId, media.url, '-o', 'copy.txt'], { configDir });
    expect(saved.code).toBe(0);
    expect(fs.readFileSync(path.join(configDir, 'copy.txt'), 'utf8')).toBe('line one\nline two\n');
  });

  test('approvals: list the unanswered, answer with a note, show the answer', async ({ env }) => {
    const configDir = newConfigDir();
    await loginWith(configDir, env.api.url, env.user.apiKey);
    const created = await call<{ id: string }>(`${env.api.url}/approval`, {
      headers: env.user.auth,
      json: { question: 'Ship the release?', options: ['ship', 'wait'] },
    });
    const open = await json<Array<{ id: string }>>(['approvals', 'ls', '--status', 'unanswered'], configDir);
    expect(open.map((approval) => approval.id)).toContain(created.body.id);
    const answered = await runCli(['approvals', 'answer', created.body.id, 'ship', '--note', 'go'], { configDir });
    expect(answered.code, answered.stderr).toBe(0);
    expect(await json(['approvals', 'show', created.body.id], configDir)).toMatchObject({ status: 'answered', choice: 'ship', note: 'go' });
    expect((await runCli(['approvals', 'answer', created.body.id, 'wait'], { configDir })).code).toBe(1);
  });

  test('runs start a workflow in a new session', async ({ env }) => {
    const configDir = newConfigDir();
    await loginWith(configDir, env.api.url, env.user.apiKey);
    const { name } = await env.deploy({
      workflows: { summarise: { start: 'write', nodes: { write: { type: 'agent', prompt: 'Summarise {{input}}' } } } },
    });
    const started = await json<{ sessionId: string; runId: string }>(
      ['runs', 'start', name, 'summarise', '--input', 'the notes'],
      configDir,
    );
    expect(started.sessionId).toMatch(/^ses_/);
    const events = await env.waitForEvents(started.sessionId, (all) => all.some((event) => event.type === 'workflow.completed'));
    expect(events.some((event) => event.type === 'workflow.started')).toBe(true);
  });

  test('keys: create (shown once), list, delete; limits', async ({ env }) => {
    const configDir = newConfigDir();
    await loginWith(configDir, env.api.url, env.user.apiKey);
    const key = await json<{ id: string; key: string; scopes: string[] }>(['keys', 'create', '--name', 'ci', '--scope', 'read'], configDir);
    expect(key.scopes).toEqual(['read']);
    expect((await call(`${env.api.url}/key`, { headers: { authorization: `Bearer ${key.key}` } })).status).toBe(200);
    expect((await json<Array<{ id: string }>>(['keys', 'ls'], configDir)).map((listed) => listed.id)).toContain(key.id);
    expect((await runCli(['keys', 'rm', key.id], { configDir })).code).toBe(0);
    expect((await call(`${env.api.url}/key`, { headers: { authorization: `Bearer ${key.key}` } })).status).toBe(401);

    // Limits: as GET /limits has them, and a table naming each setting.
    const limits = await json<Record<string, { limit: number; used: number; setting: string }>>(['limits'], configDir);
    expect(limits.keys).toEqual({ limit: 100, used: expect.any(Number), setting: 'KEYS_PER_USER' });
    expect(limits.runningTurns).toMatchObject({ setting: 'RUNNING_TURNS_PER_USER' });
    const table = await runCli(['limits'], { configDir });
    expect(table.stdout).toMatch(/^LIMIT\s+USED\s+OF\s+SETTING$/m);
    expect(table.stdout).toMatch(/^openApprovals\s+\d+\s+1000\s+OPEN_APPROVALS_PER_USER$/m);
  });

  test('webhooks: add (the secret shown once), list, deliveries, delete', async ({ env }) => {
    const configDir = newConfigDir();
    await loginWith(configDir, env.api.url, env.user.apiKey);
    const hook = await json<{ id: string; secret: string }>(
      ['webhooks', 'add', 'https://example.com/hooks', '-e', 'session.completed', 'session.failed'],
      configDir,
    );
    expect(hook.secret).toMatch(/^whsec_/);
    const hooks = await runCli(['webhooks', 'ls', '--json'], { configDir });
    expect(hooks.stdout).not.toContain(hook.secret);
    expect((JSON.parse(hooks.stdout) as Array<{ id: string }>).map((listed) => listed.id)).toContain(hook.id);
    expect(await json(['webhooks', 'deliveries', hook.id], configDir)).toEqual([]);
    expect((await runCli(['webhooks', 'rm', hook.id], { configDir })).code).toBe(0);
  });
});
