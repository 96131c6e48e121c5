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

  test('a subtask runs in a child session and its reply comes back into the calling session, which the next turn reads', async ({
    env,
  }) => {
    const { name } = await env.deploy({ command: { research: { template: 'Research ${1}', subtask: true } } });
    const parentId = (await call<{ id: string }>(`${env.api.url}/agent/${name}/session`, { headers: env.user.auth, json: {} })).body.id;
    env.fake.enqueue({ text: 'Hello.' });
    await call(`${env.api.url}/session/${parentId}`, { headers: env.user.auth, json: { parts: [{ type: 'text', text: 'Hi' }] } });

    env.fake.enqueue({ text: 'Tides follow the moon.' });
    const sub = await call<{ sessionId: string; parentSessionId: string; reply: string; messageId: string }>(
      `${env.api.url}/agent/${name}/command/research`,
      { headers: env.user.auth, json: { args: ['tides'], sessionId: parentId } },
    );
    expect(sub.status).toBe(200);
    expect(sub.body).toMatchObject({ reply: 'Tides follow the moon.', parentSessionId: parentId });
    expect(sub.body.sessionId).not.toBe(parentId);
    const child = await call<{ parentSessionId: string; messages: { id: string; role: string }[] }>(
      `${env.api.url}/session/${sub.body.sessionId}`,
      {
        headers: env.user.auth,
      },
    );
    expect(child.body.parentSessionId).toBe(parentId);
    const childReply = child.body.messages.filter((message) => message.role === 'assistant').at(-1)!;
    const [created] = await env.waitForEvents(sub.body.sessionId, (events) => events.some((event) => event.type === 'session.created'));
    expect(created).toMatchObject({ type: 'session.created', parentSessionId: parentId });

    // The reply arrives in the parent as a message of its own, announced on the parent's stream.
    const events = await env.waitForEvents(parentId, (all) =>
      all.some((event) => event.type === 'message.created' && JSON.stringify(event).includes('"subtask"')),
    );
    const announced = events.find((event) => event.type === 'message.created' && JSON.stringify(event).includes('"subtask"'))!;
    const parent = await call<{
      parentSessionId: string | null;
      status: string;
      messages: { id: string; role: string; parts: unknown[] }[];
    }>(`${env.api.url}/session/${parentId}`, { headers: env.user.auth });
    expect(parent.body.parentSessionId).toBeNull();
    const returned = parent.body.messages.at(-1)!;
    expect(returned).toMatchObject({ role: 'assistant', status: 'complete' });
    expect(returned.parts).toEqual([
      { type: 'subtask', sessionId: sub.body.sessionId, messageId: childReply.id, status: 'completed', command: 'research' },
      { type: 'text', text: 'Tides follow the moon.' },
    ]);
    expect(announced).toMatchObject({ message: { id: returned.id } });
    // No turn of the calling session wrote it: there is nothing to regenerate.
    const regenerate = await call(`${env.api.url}/session/${parentId}/regenerate`, {
      headers: env.user.auth,
      json: { assistantMessageId: returned.id },
    });
    expect(regenerate.status).toBe(400);
    expect(regenerate.text).toContain("subtask's reply");

    // The calling session's next turn reads the subtask's reply, after its own conversation.
    const before = env.fake.requests.length;
    env.fake.enqueue({ text: 'Noted.' });
    await call(`${env.api.url}/session/${parentId}`, { headers: env.user.auth, json: { parts: [{ type: 'text', text: 'And so?' }] } });
    const seen = JSON.stringify(env.fake.requests[before]!.body.messages);
    expect(seen).toContain('Tides follow the moon.');
    expect(seen.indexOf('Hello.')).toBeLessThan(seen.indexOf('Tides follow the moon.'));
    expect(seen.indexOf('Tides follow the moon.')).toBeLessThan(seen.indexOf('And so?'));
  });

  test('a subtask that fails comes back as failed, with why; one called without a session has no parent', async ({ env }) => {
    const { name } = await env.deploy({ command: { research: { template: 'Research ${1}', subtask: true } } });
    const parentId = await env.newSession();
    env.fake.enqueue({ status: 400 });
    const sub = await call<{ sessionId: string; status: string }>(`${env.api.url}/agent/${name}/command/research`, {
      headers: env.user.auth,
      json: { args: ['tides'], sessionId: parentId },
    });
    expect(sub.body.status).toBe('failed');
    const events = await env.waitForEvents(parentId, (all) => all.some((event) => JSON.stringify(event).includes('"subtask"')));
    const part = (events.at(-1) as unknown as { message: { parts: Record<string, unknown>[] } }).message.parts[0]!;
    expect(part).toMatchObject({ type: 'subtask', sessionId: sub.body.sessionId, status: 'failed', error: expect.stringContaining('400') });

    env.fake.enqueue({ text: 'Alone.' });
    const alone = await call<{ sessionId: string; parentSessionId?: string }>(`${env.api.url}/agent/${name}/command/research`, {
      headers: env.user.auth,
      json: { args: ['waves'] },
    });
    expect(alone.body.parentSessionId).toBeUndefined();
    const session = await call<{ parentSessionId: string | null }>(`${env.api.url}/session/${alone.body.sessionId}`, {
      headers: env.user.auth,
    });
    expect(session.body.parentSessionId).toBeNull();
  });

  test('a command retried with its Idempotency-Key goes to the session the first request opened, and runs once', async ({ env }) => {
    const { name } = await env.deploy({ command: { review: { template: 'Review ${1}' } } });
    const before = env.fake.requests.length;
    env.fake.enqueue({ text: 'Once.' });
    const send = () =>
      call<{ sessionId: string; messageId: string; reply: string }>(`${env.api.url}/agent/${name}/command/review`, {
        headers: { ...env.user.auth, 'idempotency-key': 'review-pr-12' },
        json: { args: ['pr-12'] },
      });
    const first = await send();
    const retry = await send();
    expect(retry.body).toMatchObject({ sessionId: first.body.sessionId, messageId: first.body.messageId, reply: 'Once.' });
    expect(env.fake.requests.length).toBe(before + 1);
    const sessions = await call<{ sessions: { id: string }[] }>(`${env.api.url}/agent/${name}/sessions`, { headers: env.user.auth });
    expect(sessions.body.sessions.map((session) => session.id)).toEqual([first.body.sessionId]);

    const other = await call(`${env.api.url}/agent/${name}/command/review`, {
      headers: { ...env.user.auth, 'idempotency-key': 'review-pr-12' },
      json: { args: ['pr-13'] },
    });
    expect(other.status).toBe(422);
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

  test("a subtask that names another agent runs in a child session of that agent, and its reply comes back to the caller's session", async ({
    env,
  }) => {
    const helper = await env.deploy({ instructions: 'You are the researcher.' });
    const { name } = await env.deploy({ command: { research: { template: 'Research ${1}', agent: helper.name, subtask: true } } });
    const parentId = (await call<{ id: string }>(`${env.api.url}/agent/${name}/session`, { headers: env.user.auth, json: {} })).body.id;
    env.fake.enqueue({ text: 'Found it.' });
    const sub = await call<{ sessionId: string; parentSessionId: string; reply: string }>(`${env.api.url}/agent/${name}/command/research`, {
      headers: env.user.auth,
      json: { args: ['tides'], sessionId: parentId },
    });
    expect(sub.body).toMatchObject({ reply: 'Found it.', parentSessionId: parentId });
    const child = await call<{ agentId: string; parentSessionId: string }>(`${env.api.url}/session/${sub.body.sessionId}`, {
      headers: env.user.auth,
    });
    expect(child.body).toMatchObject({ agentId: helper.agentId, parentSessionId: parentId });
    await env.waitForEvents(parentId, (events) =>
      events.some((event) => event.type === 'message.created' && JSON.stringify(event).includes(`"sessionId":"${sub.body.sessionId}"`)),
    );
  });
});
