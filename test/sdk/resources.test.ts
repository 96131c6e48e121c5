// Every resource of the SDK against the real service (fake model): what each method sends and what
// it reads back, pagination over cursors, and a typed error per status.
import { describe, expect } from 'vitest';
import { agentTest } from '../helpers/harness/fixtures.ts';
import { createTestUser } from '../helpers/harness/users.ts';
import {
  AuthenticationError,
  BadRequestError,
  Client,
  ConflictError,
  NotFoundError,
  PermissionDeniedError,
  type SessionEvent,
} from '../../sdk/src/index.ts';

const test = agentTest({ OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8' });

function clientOf(url: string, apiKey: string): Client {
  return new Client({ baseUrl: url, apiKey });
}

const FAKE_MODEL = { providerId: 'openai-compatible', modelId: 'fake-model' } as const;

describe('resources', () => {
  test('health, tool servers and the service documents', async ({ env }) => {
    const client = clientOf(env.api.url, env.user.apiKey);
    expect((await client.health.retrieve()).ok).toBe(true);
    const servers = await client.toolServers.list();
    expect(servers.map((server) => server.id)).toContain('time');
    expect((await client.meta.openapi()).openapi).toMatch(/^3\.1/);
    expect(await client.meta.bundleSchema()).toHaveProperty('properties');
    expect((await client.meta.schemas()).schemas.length).toBeGreaterThan(0);
  });

  test('agents: deploy an object and JSONC text, list, retrieve, revisions, delete', async ({ env }) => {
    const client = clientOf(env.api.url, env.user.apiKey);
    const name = `sdk-${Date.now().toString(36)}`;
    const first = await client.agents.deploy({ name, model: FAKE_MODEL });
    expect(first).toMatchObject({ ok: true, revision: 1 });
    const second = await client.agents.deploy(`// a comment, as in a service.jsonc
      { "name": "${name}", "model": { "providerId": "openai-compatible", "modelId": "fake-model" }, "instructions": "Be brief.", }`);
    expect(second.revision).toBe(2);
    expect((await client.agents.list()).agents.map((agent) => agent.name)).toContain(name);
    const detail = await client.agents.retrieve(name);
    expect(detail.bundle.instructions).toBe('Be brief.');
    expect((await client.agents.revisions(name)).revisions.map((revision) => revision.revision)).toEqual([2, 1]);
    expect((await client.agents.revision(name, 1)).bundle.instructions).toBeUndefined();
    await client.agents.delete(name);
    await expect(client.agents.retrieve(name)).rejects.toBeInstanceOf(NotFoundError);
  });

  test('agents: a staged deploy, sessions pinned to a revision, traffic shares, promote and rollback', async ({ env }) => {
    const client = clientOf(env.api.url, env.user.apiKey);
    const name = `sdk-${Date.now().toString(36)}-staged`;
    // An agent's first revision must be live: a new name cannot be staged.
    await expect(client.agents.deploy({ name, model: FAKE_MODEL }, { stage: true })).rejects.toBeInstanceOf(ConflictError);
    expect(await client.agents.deploy({ name, model: FAKE_MODEL, instructions: 'One.' })).toMatchObject({ revision: 1, liveRevision: 1 });
    const staged = await client.agents.deploy({ name, model: FAKE_MODEL, instructions: 'Two.' }, { stage: true });
    expect(staged).toMatchObject({ ok: true, revision: 2, liveRevision: 1 });
    expect(await client.agents.retrieve(name)).toMatchObject({ revision: 1, latestRevision: 2, traffic: {} });

    // New sessions start on the live revision; `revision` pins one to another, the staged one included.
    expect((await client.sessions.create(name)).revision).toBe(1);
    const pinned = await client.sessions.create(name, { revision: 2 });
    expect(pinned.revision).toBe(2);
    expect((await client.sessions.retrieve(pinned.id)).revision).toBe(2);
    await expect(client.sessions.create(name, { revision: 3 })).rejects.toBeInstanceOf(NotFoundError);

    // A share of every new session (so the draw cannot miss it), refused for the live revision, then ended.
    const canary = await client.agents.setTraffic(name, { 2: 100 });
    expect(canary).toMatchObject({ live: 1, traffic: { 2: 100 }, change: { kind: 'traffic', keyId: env.user.keyId } });
    expect((await client.sessions.create(name)).revision).toBe(2);
    await expect(client.agents.setTraffic(name, { 1: 10 })).rejects.toBeInstanceOf(BadRequestError);
    expect((await client.agents.setTraffic(name, {})).traffic).toEqual({});
    expect((await client.sessions.create(name)).revision).toBe(1);

    // Promote (a second promote of the live revision records nothing), then roll back to the revision before.
    expect(await client.agents.promote(name, 2)).toMatchObject({
      live: 2,
      changed: true,
      change: { kind: 'promoted', revision: 2, liveBefore: 1, liveAfter: 2 },
    });
    expect(await client.agents.promote(name, 2)).toEqual({ live: 2, changed: false, change: null });
    expect((await client.sessions.create(name)).revision).toBe(2);
    expect(await client.agents.rollback(name)).toMatchObject({ live: 1, changed: true, change: { kind: 'rolled_back', liveBefore: 2 } });
    expect((await client.sessions.create(name)).revision).toBe(1);

    const listed = await client.agents.revisions(name);
    expect(listed).toMatchObject({ live: 1, traffic: {} });
    expect(listed.revisions.map((revision) => [revision.revision, revision.state, revision.trafficPercent])).toEqual([
      [2, 'retired', 0],
      [1, 'live', 100],
    ]);
    expect(listed.changes.map((change) => change.kind)).toEqual(['rolled_back', 'promoted', 'traffic', 'traffic', 'staged', 'deployed']);
  });

  test('an invalid bundle is a BadRequestError listing every fault by JSON pointer', async ({ env }) => {
    const client = clientOf(env.api.url, env.user.apiKey);
    const error = await client.agents
      .deploy({ name: 'Not A Name', model: FAKE_MODEL, extra: 1 } as never)
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(BadRequestError);
    const badRequest = error as BadRequestError;
    expect(badRequest.status).toBe(400);
    expect(badRequest.traceId).toBeTruthy();
    expect(badRequest.errors.map((fault) => fault.path)).toEqual(expect.arrayContaining(['/name']));
    expect(badRequest.errors.length).toBeGreaterThanOrEqual(2);
  });

  test('sessions: create, list with pages, retrieve, send, fork, revert, regenerate, abort', async ({ env }) => {
    const client = clientOf(env.api.url, env.user.apiKey);
    const { name } = await env.deploy();
    const ids: string[] = [];
    for (let index = 0; index < 3; index++) ids.push((await client.sessions.create(name)).id);
    const firstPage = await client.sessions.list(name, { limit: 2 });
    expect(firstPage.items).toHaveLength(2);
    expect(firstPage.hasNextPage()).toBe(true);
    expect((await firstPage.getNextPage()).items.map((session) => session.id)).toEqual([ids[0]]);
    const all: string[] = [];
    for await (const session of client.sessions.list(name, { limit: 2 })) all.push(session.id);
    expect(all).toEqual([...ids].reverse());

    const sessionId = ids[0]!;
    env.fake.enqueue({ text: 'first reply' });
    const reply = await client.sessions.sendAndWait(sessionId, 'hello');
    expect(reply).toMatchObject({ status: 'completed', reply: 'first reply' });
    env.fake.enqueue({ text: 'second reply' });
    const stream = client.sessions.send(sessionId, { text: 'again' });
    expect(await stream.text()).toBe('second reply');
    const session = await client.sessions.retrieve(sessionId);
    expect(session.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'user', 'assistant']);

    const forked = await client.sessions.fork(sessionId);
    expect(forked.forkedFrom).toBe(sessionId);
    expect((await client.sessions.retrieve(forked.id)).messages).toHaveLength(4);

    const lastReply = session.messages[3]!;
    env.fake.enqueue({ text: 'another reply' });
    const regenerated = client.sessions.regenerate(sessionId, lastReply.id);
    const types: string[] = [];
    for await (const event of regenerated) types.push(event.type);
    expect(types[0]).toBe('messages.reverted');
    expect(types.at(-1)).toBe('turn.completed');
    expect(await regenerated.text()).toBe('another reply');

    const reverted = await client.sessions.revert(sessionId, session.messages[2]!.id);
    expect(reverted.reverted).toContain(session.messages[2]!.id);
    expect((await client.sessions.retrieve(sessionId)).messages).toHaveLength(2);

    const accepted = await client.sessions.sendAsync(sessionId, 'later');
    expect(accepted.messageId).toMatch(/^msg_/);
    expect(await client.sessions.abort(sessionId)).toHaveProperty('aborted');
  });

  test('events: JSON pages, and every event once from a replay', async ({ env }) => {
    const client = clientOf(env.api.url, env.user.apiKey);
    const sessionId = await env.newSession();
    await client.sessions.sendAndWait(sessionId, 'one');
    const page = await client.events.list(sessionId, { after: 0, limit: 2 });
    expect(page.events.map((event) => event.seq)).toEqual([1, 2]);
    expect(page.next).toBe(2);
    const listed: SessionEvent[] = [];
    for await (const event of client.events(sessionId, { limit: 3 })) listed.push(event);
    const stored = await env.events(sessionId);
    expect(listed).toEqual(stored);
    const followed: SessionEvent[] = [];
    const stop = new AbortController();
    for await (const event of client.events(sessionId, { after: 1, follow: true, signal: stop.signal })) {
      followed.push(event);
      if (event.seq === stored.at(-1)!.seq) break;
    }
    expect(followed).toEqual(stored.slice(1));
  });

  test('uploads from bytes, a Blob, a path and a web ReadableStream; download', async ({ env }) => {
    const client = clientOf(env.api.url, env.user.apiKey);
    const sessionId = await env.newSession();
    const fromBytes = await client.sessions.upload(sessionId, new TextEncoder().encode('a,b\n1,2\n'), {
      filename: 'table.csv',
      mediaType: 'text/csv',
    });
    expect(fromBytes).toMatchObject({ mediaType: 'text/csv', filename: 'table.csv', size: 8 });
    const fromBlob = await client.sessions.upload(sessionId, new File(['hello'], 'note.txt', { type: 'text/plain' }));
    expect(fromBlob.filename).toBe('note.txt');
    const downloaded = await client.sessions.downloadMedia(sessionId, fromBlob.url);
    expect(downloaded.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(await downloaded.text()).toBe('hello');
    const fromPath = await client.sessions.upload(sessionId, new URL(import.meta.url).pathname, { mediaType: 'text/plain' });
    expect(fromPath.filename).toBe('resources.test.ts');
    // A stream arriving in pieces (as a fetch body or a file picker's stream() does) is stored whole.
    const pieces = ['id,total\n', 'A-17,120\n', 'A-18,', '75\n'];
    const chunks = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const piece of pieces) controller.enqueue(new TextEncoder().encode(piece));
        controller.close();
      },
    });
    const fromStream = await client.sessions.upload(sessionId, chunks, { filename: 'orders.csv' });
    expect(fromStream).toMatchObject({ filename: 'orders.csv', mediaType: 'text/csv', size: pieces.join('').length });
    expect(await (await client.sessions.downloadMedia(sessionId, fromStream.url)).text()).toBe(pieces.join(''));
    const reply = await client.sessions.sendAndWait(sessionId, {
      parts: [
        { type: 'text', text: 'read' },
        { type: 'file', url: fromBytes.url },
      ],
    });
    expect(reply.status).toBe('completed');
  });

  test('keys, secrets, webhooks and their deliveries', async ({ env }) => {
    const client = clientOf(env.api.url, env.user.apiKey);
    const created = await client.keys.create({ name: 'narrow', scopes: ['read'] });
    expect(created.key).toMatch(/^sk_/);
    expect((await client.keys.list()).keys.map((key) => key.id)).toContain(created.id);
    const narrow = clientOf(env.api.url, created.key);
    expect((await narrow.agents.list()).agents).toBeDefined();
    await expect(narrow.secrets.put('NOPE', 'x')).rejects.toBeInstanceOf(PermissionDeniedError);
    await client.keys.delete(created.id);
    await expect(narrow.agents.list()).rejects.toBeInstanceOf(AuthenticationError);

    const secret = await client.secrets.put('SDK_SECRET', 'value-1');
    expect(secret.key).toBe('SDK_SECRET');
    expect((await client.secrets.list()).secrets.map((entry) => entry.key)).toContain('SDK_SECRET');
    await client.secrets.delete('SDK_SECRET');
    await expect(client.secrets.delete('SDK_SECRET')).rejects.toBeInstanceOf(NotFoundError);

    const webhook = await client.webhooks.create({ url: 'http://127.0.0.1:9/hooks', events: ['session.completed'] });
    expect(webhook.secret).toMatch(/^whsec_/);
    expect((await client.webhooks.list()).webhooks.map((entry) => entry.id)).toContain(webhook.id);
    const deliveries = await client.webhooks.deliveries.list(webhook.id);
    expect(deliveries.items).toEqual([]);
    expect(deliveries.hasNextPage()).toBe(false);
    await client.webhooks.delete(webhook.id);
    await expect(client.webhooks.delete(webhook.id)).rejects.toBeInstanceOf(NotFoundError);
  });

  test('admin users: an admin creates one, anyone else is refused', async ({ env }) => {
    const admin = await createTestUser(env.api.db, { admin: true });
    const created = await clientOf(env.api.url, admin.apiKey).admin.users.create({ name: `sdk-user-${Date.now()}` });
    expect(created.apiKey).toMatch(/^sk_/);
    expect((await clientOf(env.api.url, created.apiKey).keys.list()).keys).toHaveLength(1);
    await expect(clientOf(env.api.url, env.user.apiKey).admin.users.create({ name: 'x' })).rejects.toBeInstanceOf(PermissionDeniedError);
  });

  test('workflow runs: start and retrieve', async ({ env }) => {
    const client = clientOf(env.api.url, env.user.apiKey);
    const { name } = await env.deploy({
      workflows: { once: { start: 'work', nodes: { work: { type: 'agent', prompt: 'Work on {{input}}' } } } },
    });
    const started = await client.runs.start(name, 'once', { input: 'the report' });
    expect(started.runId).toBeTruthy();
    let run = await client.runs.retrieve(started.runId);
    for (let tries = 0; run.status === 'running' && tries < 100; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      run = await client.runs.retrieve(started.runId);
    }
    expect(run).toMatchObject({ id: started.runId, workflow: 'once', status: 'completed', sessionId: started.sessionId });
  });

  test('typed errors: 401, 403, 404 and 409', async ({ env }) => {
    await expect(clientOf(env.api.url, 'sk_not_a_key_of_anyone_at_all_0000').agents.list()).rejects.toMatchObject({
      name: 'AuthenticationError',
      status: 401,
      type: 'https://agent-service.dev/problems/unauthorized',
    });
    const client = clientOf(env.api.url, env.user.apiKey);
    const missing = await client.sessions.retrieve('ses_missing').catch((caught: unknown) => caught);
    expect(missing).toBeInstanceOf(NotFoundError);
    expect((missing as NotFoundError).traceId).toBeTruthy();
    const other = await createTestUser(env.api.db);
    const sessionId = await env.newSession();
    await expect(clientOf(env.api.url, other.apiKey).sessions.retrieve(sessionId)).rejects.toBeInstanceOf(PermissionDeniedError);
    const approval = await client.approvals.create({ question: 'Twice?' });
    await client.approvals.answer(approval.id, { choice: 'yes' });
    const conflict = await client.approvals.answer(approval.id, { choice: 'no' }).catch((caught: unknown) => caught);
    expect(conflict).toBeInstanceOf(ConflictError);
    expect((conflict as ConflictError).status).toBe(409);
  });
});
