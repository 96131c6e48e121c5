// Skills over HTTP with the fake model: a URL skill is fetched at deploy and frozen into the revision,
// the system prompt lists skills by name and description only, and the model loads one on demand with
// load_skill; a skill that cannot be fetched fails the deploy at its path.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { agentTest } from '../helpers/harness/fixtures.ts';
import { call } from '../helpers/client/request.ts';
import { closeServer } from '../helpers/fakes/recorded.ts';
import { messageText } from '../helpers/fakes/fake-model.ts';

const test = agentTest({ OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8', SKILL_MAX_BYTES: '2000' });

/** Serves skill texts by path; what it serves can change between deploys. */
let server: Server;
let base: string;
const served = new Map<string, { type: string; body: string; status?: number }>();
let requests = 0;
beforeAll(async () => {
  server = createServer((req, res) => {
    requests++;
    const page = served.get(req.url ?? '');
    if (!page) return res.writeHead(404).end('not found');
    res.writeHead(page.status ?? 200, { 'content-type': page.type }).end(page.body);
  });
  server.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => closeServer(server));

const STYLE_V1 =
  '---\nname: style\ndescription: How replies are written here\n---\n# Style\nUse short sentences. Never use exclamation marks.';

describe('skills', () => {
  test('a URL skill is fetched at deploy, listed in the prompt, and loaded by the model on demand', async ({ env }) => {
    served.set('/skills/style.md', { type: 'text/markdown; charset=utf-8', body: STYLE_V1 });
    const { name } = await env.deploy({
      instructions: 'You write replies.',
      skills: [{ name: 'style', url: `${base}/skills/style.md` }, 'triage'],
      workspaceFiles: { 'skills/triage/SKILL.md': 'Sort tickets by urgency first.' },
    });
    // Changed after the deploy: the revision keeps what was fetched then.
    served.set('/skills/style.md', { type: 'text/markdown', body: 'A different text' });

    const session = await call<{ id: string }>(`${env.api.url}/agent/${name}/session`, { headers: env.user.auth, json: {} });
    const before = env.fake.requests.length;
    env.fake.enqueue({ toolCalls: [{ id: 'call_s', name: 'load_skill', arguments: { name: 'style' } }] }, { text: 'Done.' });
    const reply = await call<{ status: string }>(`${env.api.url}/session/${session.body.id}`, {
      headers: env.user.auth,
      json: { parts: [{ type: 'text', text: 'Write a reply' }] },
    });
    expect(reply.body.status).toBe('completed');

    const first = env.fake.requests[before]!.body;
    const system = messageText(first.messages[0]);
    expect(system).toContain('- style: How replies are written here');
    expect(system).toContain('- triage: Sort tickets by urgency first.');
    expect(system).not.toContain('Never use exclamation marks');
    expect(first.tools!.map((tool) => tool.function.name)).toContain('load_skill');

    const events = await env.events(session.body.id);
    expect(events.find((event) => event.type === 'tool.result')).toMatchObject({
      toolName: 'load_skill',
      output: { name: 'style', content: '# Style\nUse short sentences. Never use exclamation marks.' },
    });
    // What the model read back in its next step is the frozen text.
    expect(JSON.stringify(env.fake.requests[before + 1]!.body.messages)).toContain('Never use exclamation marks');

    // A redeploy fetches again.
    const fetchesBefore = requests;
    await call(`${env.api.url}/deploy`, {
      headers: env.user.auth,
      json: {
        name,
        model: { providerId: 'openai-compatible', modelId: 'fake-model' },
        skills: [{ name: 'style', url: `${base}/skills/style.md` }],
      },
    });
    expect(requests).toBe(fetchesBefore + 1);
  });

  test('a skill that cannot be fetched, is not text, or is too long fails the deploy at its path; nothing is stored', async ({ env }) => {
    served.set('/binary', { type: 'application/octet-stream', body: 'x' });
    served.set('/long', { type: 'text/plain', body: 'y'.repeat(2001) });
    const name = `skills-${crypto.randomUUID().slice(0, 8)}`;
    const response = await call<{ ok: boolean; errors: { path: string; message: string }[] }>(`${env.api.url}/deploy`, {
      headers: env.user.auth,
      json: {
        name,
        model: { providerId: 'openai-compatible', modelId: 'fake-model' },
        skills: [{ name: 'missing', url: `${base}/missing` }, `${base}/binary`, { name: 'long', url: `${base}/long` }],
      },
    });
    expect(response.status).toBe(400);
    expect(response.body.errors).toEqual([
      { path: '/skills/0/url', message: `${base}/missing could not be fetched: the server answered 404` },
      { path: '/skills/1', message: `${base}/binary is application/octet-stream, not text` },
      { path: '/skills/2/url', message: `${base}/long is over 2000 bytes` },
    ]);
    expect((await call(`${env.api.url}/agent/${name}`, { headers: env.user.auth })).status).toBe(404);
  });
});
