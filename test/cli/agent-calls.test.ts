// Agents that call agents, through the CLI against the real service (fake model): `send` notes the
// call and the child session it runs in, and `sessions show` names the children and the parent; a
// question the child asks shows on the caller's `send` as its own do, with how to answer it.
import { beforeAll, expect } from 'vitest';
import { agentTest } from '../helpers/harness/fixtures.ts';
import { call } from '../helpers/client/request.ts';
import { HELPER_ASKS, HELPER_INSTRUCTIONS, LEAD_INSTRUCTIONS, leadAndHelper } from '../helpers/fakes/lead-and-helper.ts';
import { ensureBuilt, loginWith, newConfigDir, outcome, runCli, startCli } from './run-cli.ts';

const test = agentTest();

beforeAll(() => ensureBuilt());

test('send notes the call of another agent, and sessions show names the children and the parent', async ({ env }) => {
  const helper = await env.deploy({ instructions: HELPER_INSTRUCTIONS });
  const lead = await env.deploy({ instructions: LEAD_INSTRUCTIONS, agents: [{ name: helper.name }] });
  env.fake.setHandler(leadAndHelper({ helperName: helper.name }));
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

test('send shows a question the called agent asks, with how to answer it, and goes on once it is answered', async ({ env }) => {
  const helper = await env.deploy({ instructions: HELPER_INSTRUCTIONS });
  const lead = await env.deploy({ instructions: LEAD_INSTRUCTIONS, agents: [{ name: helper.name }] });
  env.fake.setHandler(
    leadAndHelper({
      helperName: helper.name,
      ...HELPER_ASKS,
      leadText: 'The helper chose.',
    }),
  );
  const configDir = newConfigDir();
  await loginWith(configDir, env.api.url, env.user.apiKey);
  const sessionId = (await call<{ id: string }>(`${env.api.url}/agent/${lead.name}/session`, { headers: env.user.auth, json: {} })).body.id;

  const child = startCli(['send', '--session', sessionId, 'Go'], { configDir });
  const finished = outcome(child);
  let stderr = '';
  const asked = new Promise<string>((resolve) =>
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const approvalId = /approvals answer (apr_\w+)/.exec(stderr)?.[1];
      if (approvalId) resolve(approvalId);
    }),
  );
  const approvalId = await asked;
  expect(stderr).toContain(`agent ${helper.name} asks`);
  expect(stderr).toContain('Red or blue?');
  const answered = await call(`${env.api.url}/approval/${approvalId}/answer`, { headers: env.user.auth, json: { choice: 'blue' } });
  expect(answered.status).toBe(200);
  const sent = await finished;
  expect(sent.code, sent.stderr).toBe(0);
  expect(sent.stdout).toBe('The helper chose.\n');
});
