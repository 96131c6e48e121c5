// Agents that call agents, through the CLI against the real service (fake model): `send` notes the
// call and the child session it runs in, and `sessions show` names the children and the parent.
import { beforeAll, expect } from 'vitest';
import { agentTest } from '../helpers/harness/fixtures.ts';
import { call } from '../helpers/client/request.ts';
import { messageText } from '../helpers/fakes/fake-model.ts';
import { ensureBuilt, loginWith, newConfigDir, runCli } from './run-cli.ts';

const test = agentTest();

beforeAll(() => ensureBuilt());

test('send notes the call of another agent, and sessions show names the children and the parent', async ({ env }) => {
  const helper = await env.deploy({ instructions: 'ROLE helper' });
  const lead = await env.deploy({ instructions: 'ROLE lead', agents: [{ name: helper.name }] });
  env.fake.setHandler((request) => {
    const system = messageText(request.body.messages.find((message) => message.role === 'system')) ?? '';
    if (system.includes('ROLE helper')) return { text: 'Helped.' };
    return request.body.messages.at(-1)?.role === 'tool'
      ? { text: 'All done.' }
      : { toolCalls: [{ id: 'call_help', name: `agent_${helper.name}`, arguments: { message: 'Help me' } }] };
  });
  const configDir = newConfigDir();
  await loginWith(configDir, env.api.url, env.user.apiKey);
  const sessionId = (await call<{ id: string }>(`${env.api.url}/agent/${lead.name}/session`, { headers: env.user.auth, json: {} })).body.id;

  const sent = await runCli(['send', '--session', sessionId, 'Go'], { configDir });
  expect(sent.code, sent.stderr).toBe(0);
  expect(sent.stdout).toBe('All done.\n');
  const childId = /works in session (ses_\w+)/.exec(sent.stderr)?.[1];
  expect(sent.stderr).toContain(`⇢ agent ${helper.name} works in session`);
  expect(childId).toBeDefined();

  const parent = await runCli(['sessions', 'show', sessionId], { configDir });
  expect(parent.code, parent.stderr).toBe(0);
  expect(parent.stdout).toMatch(new RegExp(`children\\n  ${childId}  ${helper.name}  idle  call call_help`));
  const child = await runCli(['sessions', 'show', childId!], { configDir });
  expect(child.stdout, child.stdout).toMatch(new RegExp(`parent: +${sessionId} \\(call call_help\\)`));
  expect(child.stdout).toContain('Helped.');
});
