// Custom commands over HTTP with the fake model: positional and flag placeholders resolved into the
// prompt the model sees, a missing one a 400 naming it, and a command that runs on another agent with
// its own model.
import { describe, expect } from 'vitest';
import { agentTest } from '../helpers/harness/fixtures.ts';
import { call } from '../helpers/client/request.ts';
import { lastUserText } from '../helpers/fakes/fake-model.ts';

const test = agentTest();

describe('custom commands', () => {
  test('positional and flag placeholders become the prompt; the answer is a send with its sessionId', async ({ env }) => {
    const { name } = await env.deploy({ command: { review: { template: 'Review ${1} against ${2}, tone: ${tone}.' } } });
    const before = env.fake.requests.length;
    env.fake.enqueue({ text: 'Looks good.' });
    const reply = await call<{ sessionId: string; reply: string; status: string }>(`${env.api.url}/agent/${name}/command/review`, {
      headers: env.user.auth,
      json: { args: ['pr-12', 'main'], flags: { tone: 'kind' } },
    });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ status: 'completed', reply: 'Looks good.', sessionId: expect.stringMatching(/^ses_/) });
    expect(lastUserText(env.fake.requests[before]!)).toBe('Review pr-12 against main, tone: kind.');

    // Into the same session, async.
    env.fake.enqueue({ text: 'Again.' });
    const again = await call<{ sessionId: string; messageId: string }>(`${env.api.url}/agent/${name}/command/review?async=1`, {
      headers: env.user.auth,
      json: { args: ['pr-13', 'dev'], flags: { tone: 'blunt' }, sessionId: reply.body.sessionId },
    });
    expect(again.status).toBe(202);
    expect(again.body.sessionId).toBe(reply.body.sessionId);
    await env.waitForEvents(reply.body.sessionId, (events) => events.filter((event) => event.type === 'turn.completed').length === 2);
  });

  test('GET /agent/<name> lists each command with what it needs', async ({ env }) => {
    const { name } = await env.deploy({
      command: {
        review: { template: 'Review ${1} against ${2}, tone: ${tone}.' },
        summarise: { template: 'Summarise $ARGUMENTS', subtask: true, model: { providerId: 'openai', modelId: 'gpt-4.1' } },
      },
    });
    const agent = await call<{ commands: unknown[] }>(`${env.api.url}/agent/${name}`, { headers: env.user.auth });
    expect(agent.body.commands).toEqual([
      {
        name: 'review',
        template: 'Review ${1} against ${2}, tone: ${tone}.',
        usage: '<1> <2> --tone <tone>',
        positionals: 2,
        flags: ['tone'],
        allArguments: false,
        subtask: false,
      },
      {
        name: 'summarise',
        template: 'Summarise $ARGUMENTS',
        usage: '[arguments...]',
        positionals: 0,
        flags: [],
        allArguments: true,
        model: { providerId: 'openai', modelId: 'gpt-4.1' },
        subtask: true,
      },
    ]);
  });

  test('a missing argument or flag, an unknown flag and an unknown command are refused, and nothing is sent', async ({ env }) => {
    const { name } = await env.deploy({ command: { review: { template: 'Review ${1} as ${tone}' } } });
    const before = env.fake.requests.length;
    const missing = await call<{ errors: { path: string; message: string }[] }>(`${env.api.url}/agent/${name}/command/review`, {
      headers: env.user.auth,
      json: { flags: { colour: 'red' } },
    });
    expect(missing.status).toBe(400);
    expect(missing.body.errors).toEqual([
      { path: '/args/0', message: 'argument ${1} is missing' },
      { path: '/flags/tone', message: 'flag --tone is missing' },
      { path: '/flags/colour', message: 'unknown flag --colour; flags: --tone' },
    ]);
    const unknown = await call(`${env.api.url}/agent/${name}/command/deploy`, { headers: env.user.auth, json: {} });
    expect(unknown.status).toBe(404);
    expect(unknown.text).toContain('its commands: review');
    expect(env.fake.requests.length).toBe(before);
  });

  test('a subtask runs in a new session of its own, even when called from a session', async ({ env }) => {
    const { name } = await env.deploy({ command: { research: { template: 'Research ${1}', subtask: true } } });
    env.fake.enqueue({ text: 'First.' }, { text: 'Found it.' });
    const caller = await call<{ sessionId: string }>(`${env.api.url}/agent/${name}/command/research`, {
      headers: env.user.auth,
      json: { args: ['tides'] },
    });
    const sub = await call<{ sessionId: string; reply: string }>(`${env.api.url}/agent/${name}/command/research`, {
      headers: env.user.auth,
      json: { args: ['currents'], sessionId: caller.body.sessionId },
    });
    expect(sub.body.reply).toBe('Found it.');
    expect(sub.body.sessionId).not.toBe(caller.body.sessionId);
  });

  test('`agent` runs the command on another agent, `model` is used for that turn', async ({ env }) => {
    const helper = await env.deploy({ instructions: 'You are the reviewer.' });
    const { name } = await env.deploy({
      command: {
        delegate: {
          template: 'Check $ARGUMENTS',
          agent: helper.name,
          model: { providerId: 'openai-compatible', modelId: 'fake-model-large' },
        },
      },
    });
    const before = env.fake.requests.length;
    env.fake.enqueue({ text: 'Checked.' });
    const reply = await call<{ sessionId: string; reply: string }>(`${env.api.url}/agent/${name}/command/delegate`, {
      headers: env.user.auth,
      json: { args: ['the', 'release', 'notes'] },
    });
    expect(reply.body.reply).toBe('Checked.');
    const request = env.fake.requests[before]!;
    expect(request.body.model).toBe('fake-model-large');
    expect(lastUserText(request)).toBe('Check the release notes');
    expect(JSON.stringify(request.body.messages[0])).toContain('You are the reviewer.');
    const session = await call<{ agentId: string }>(`${env.api.url}/session/${reply.body.sessionId}`, { headers: env.user.auth });
    expect(session.body.agentId).toBe(helper.agentId);
  });
});
