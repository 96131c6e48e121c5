// Uploads, their download, and files in messages, through the HTTP API with storage under a
// temporary DATA_DIR: what is stored, what is served, and that bad input leaves nothing behind.
import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { describe, expect } from 'vitest';
import type { AgentEnv } from '../helpers/harness/agent-env.ts';
import { agentTest } from '../helpers/harness/fixtures.ts';
import { call, type JsonResponse } from '../helpers/client/request.ts';
import { createTestUser } from '../helpers/harness/users.ts';

const test = agentTest({}, { ownDataDir: true });
test.beforeEach(({ env }) => env.fake.reset());

const mediaDir = (env: AgentEnv) => path.join(env.api.config.dataDir, 'media');
/** Every file under DATA_DIR/media, temporary ones included. */
function storedFiles(env: AgentEnv): string[] {
  if (!fs.existsSync(mediaDir(env))) return [];
  return (fs.readdirSync(mediaDir(env), { recursive: true }) as string[]).filter((name) =>
    fs.statSync(path.join(mediaDir(env), name)).isFile(),
  );
}
async function mediaRows(env: AgentEnv, sessionId: string): Promise<number> {
  const { rows } = await env.api.db.query<{ count: string }>('SELECT count(*) FROM media WHERE session_id = $1', [sessionId]);
  return Number(rows[0]!.count);
}

interface Part {
  name: string;
  filename?: string;
  /** Written verbatim after the name, e.g. an RFC 5987 `filename*`. */
  disposition?: string;
  type?: string;
  data: Buffer | string;
}

/** A multipart body written by hand, so filenames reach the server exactly as given. */
function multipart(parts: Part[]): { body: Buffer; contentType: string } {
  const boundary = `----test-${randomUUID()}`;
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const filename = (part.filename === undefined ? '' : `; filename="${part.filename}"`) + (part.disposition ?? '');
    const type = part.type ? `Content-Type: ${part.type}\r\n` : '';
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"${filename}\r\n${type}\r\n`, 'utf8'));
    chunks.push(Buffer.isBuffer(part.data) ? part.data : Buffer.from(part.data, 'utf8'));
    chunks.push(Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

interface Uploaded {
  url: string;
  mediaType: string;
  filename: string;
  size: number;
  /** Of a problem answer. */
  detail?: string;
}

function upload(
  env: AgentEnv,
  sessionId: string,
  parts: Part[],
  headers: Record<string, string> = env.user.auth,
): Promise<JsonResponse<Uploaded>> {
  const { body, contentType } = multipart(parts);
  return call<Uploaded>(`${env.api.url}/session/${sessionId}/upload`, {
    method: 'POST',
    headers: { ...headers, 'content-type': contentType },
    body,
  });
}
const file = (filename: string, type: string, data: Buffer | string): Part => ({ name: 'file', filename, type, data });
const download = (env: AgentEnv, sessionId: string, key: string, headers: Record<string, string> = env.user.auth) =>
  fetch(`${env.api.url}/session/${sessionId}/media?key=${key}`, { headers });

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');

describe('upload and download', () => {
  test('round trip: the bytes and the type come back, with safe headers', async ({ env }) => {
    const sessionId = await env.newSession();
    const stored = await upload(env, sessionId, [file('chart.png', 'image/png', PNG)]);
    expect(stored.status).toBe(201);
    expect(stored.body).toEqual({
      url: expect.stringMatching(/^media\/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}-chart\.png$/),
      mediaType: 'image/png',
      filename: 'chart.png',
      size: PNG.length,
    });
    expect(storedFiles(env)).toContain(stored.body.url.slice('media/'.length));

    const response = await download(env, sessionId, encodeURIComponent(stored.body.url));
    expect(response.status).toBe(200);
    expect(Buffer.from(await response.arrayBuffer())).toEqual(PNG);
    expect(response.headers.get('content-type')).toBe('image/png');
    expect(response.headers.get('content-length')).toBe(String(PNG.length));
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('content-disposition')).toBe(`inline; filename="chart.png"; filename*=UTF-8''chart.png`);
  });

  test.for<[string, string]>([
    ['page.html', 'text/html'],
    ['drawing.svg', 'image/svg+xml'],
  ])('%s (%s) is served as an attachment, never inline', async ([name, type], { env }) => {
    const sessionId = await env.newSession();
    const content =
      type === 'text/html' ? '<script>alert(1)</script>' : '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>';
    const stored = await upload(env, sessionId, [file(name, type, content)]);
    const response = await download(env, sessionId, stored.body.url);
    expect(response.headers.get('content-type')).toBe(type);
    expect(response.headers.get('content-disposition')).toMatch(/^attachment; /);
    expect(response.headers.get('content-security-policy')).toContain('sandbox');
    expect(await response.text()).toBe(content);
  });

  test('a UTF-8 name keeps its exact form for display and an ASCII form in the key', async ({ env }) => {
    const sessionId = await env.newSession();
    const stored = await upload(env, sessionId, [file('Ünïcödé résumé.txt', 'text/plain', 'hello')]);
    expect(stored.body.filename).toBe('Ünïcödé résumé.txt');
    expect(stored.body.url).toMatch(/-Unicode_resume\.txt$/);
    const response = await download(env, sessionId, stored.body.url);
    expect(response.headers.get('content-disposition')).toBe(
      `inline; filename="_n_c_d_ r_sum_.txt"; filename*=UTF-8''${encodeURIComponent('Ünïcödé résumé.txt')}`,
    );
  });
});

describe('bad uploads: a clear 4xx and nothing stored', () => {
  async function expectNothingStored(
    env: AgentEnv,
    sessionId: string,
    response: Pick<JsonResponse<unknown>, 'status' | 'headers'>,
    status: number,
  ) {
    expect(response.status).toBe(status);
    expect(response.headers.get('content-type')).toMatch(/problem\+json/);
    expect(await mediaRows(env, sessionId)).toBe(0);
    expect(storedFiles(env).filter((name) => name.startsWith('.tmp'))).toEqual([]);
  }

  test('26 MiB is beyond the 25 MiB limit: 413, no file left on disk, no row', async ({ env }) => {
    const sessionId = await env.newSession();
    const before = storedFiles(env);
    const response = await upload(env, sessionId, [file('big.bin', 'application/octet-stream', Buffer.alloc(26 * 1024 * 1024, 7))]);
    await expectNothingStored(env, sessionId, response, 413);
    expect(response.body).toMatchObject({ detail: expect.stringContaining(String(25 * 1024 * 1024)) });
    expect(storedFiles(env)).toEqual(before);
  });

  test.for<[string, Part[], number, RegExp]>([
    ['an empty file', [file('empty.txt', 'text/plain', '')], 400, /empty/],
    ['no file part', [{ name: 'note', data: 'just a field' }], 400, /part named "file"/],
    ['two files', [file('a.txt', 'text/plain', 'a'), file('b.txt', 'text/plain', 'b')], 400, /exactly one file/],
    ['a file in another part', [{ name: 'upload', filename: 'a.txt', type: 'text/plain', data: 'a' }], 400, /exactly one file/],
    ['too many fields', Array.from({ length: 8 }, (_, i) => ({ name: `f${i}`, data: 'x' })), 400, /too many/],
  ])('%s', async ([_name, parts, status, detail], { env }) => {
    const sessionId = await env.newSession();
    const before = storedFiles(env);
    const response = await upload(env, sessionId, parts);
    await expectNothingStored(env, sessionId, response, status);
    expect(response.body.detail).toMatch(detail);
    expect(storedFiles(env)).toEqual(before);
  });

  test('a body that is not multipart is 415; none at all is 400', async ({ env }) => {
    const sessionId = await env.newSession();
    const json = await call(`${env.api.url}/session/${sessionId}/upload`, { headers: env.user.auth, json: { file: 'x' } });
    await expectNothingStored(env, sessionId, json, 415);
    const empty = await call(`${env.api.url}/session/${sessionId}/upload`, { method: 'POST', headers: env.user.auth });
    await expectNothingStored(env, sessionId, empty, 400);
  });

  test("another user's session is 403 and stores nothing", async ({ env }) => {
    const sessionId = await env.newSession();
    const other = await createTestUser(env.api.db);
    const before = storedFiles(env);
    await expectNothingStored(env, sessionId, await upload(env, sessionId, [file('a.txt', 'text/plain', 'a')], other.auth), 403);
    expect(storedFiles(env)).toEqual(before);
  });
});

describe('filenames are reduced to a safe basename', () => {
  test.for<[string, string, RegExp]>([
    ['a path with ../', '../../../etc/passwd', /-passwd$/],
    ['a Windows path', '..\\..\\Windows\\win.ini', /-win\.ini$/],
    ['only dots', '..', /-file$/],
    ['a hidden file', '.htaccess', /-htaccess$/],
    ['spaces and quotes', "my 'report' (final).pdf", /-my_report_final_\.pdf$|-my_report_final\.pdf$/],
  ])('%s', async ([_name, filename, key], { env }) => {
    const sessionId = await env.newSession();
    const stored = await upload(env, sessionId, [file(filename, 'text/plain', 'content')]);
    expect(stored.status).toBe(201);
    expect(stored.body.url).toMatch(/^media\/[0-9a-f-]{36}-[A-Za-z0-9._-]+$/);
    expect(stored.body.url).toMatch(key);
    expect(stored.body.filename).not.toMatch(/[/\\]/);
    const name = stored.body.url.slice('media/'.length);
    expect(fs.existsSync(path.join(mediaDir(env), name))).toBe(true);
    expect(await (await download(env, sessionId, stored.body.url)).text()).toBe('content');
  });

  test('a raw NUL in the filename is a malformed part (400); an encoded one is dropped', async ({ env }) => {
    const sessionId = await env.newSession();
    const raw = await upload(env, sessionId, [file('evil\u0000.txt.sh', 'text/plain', 'x')]);
    expect(raw.status).toBe(400);
    expect(raw.body.detail).toMatch(/Malformed part header/);
    expect(await mediaRows(env, sessionId)).toBe(0);

    const encoded = await upload(env, sessionId, [
      { name: 'file', disposition: "; filename*=UTF-8''evil%00%0a.txt.sh", type: 'text/plain', data: 'x' },
    ]);
    expect(encoded.status).toBe(201);
    expect(encoded.body.url).toMatch(/-evil\.txt\.sh$/);
    expect(encoded.body.filename).toBe('evil.txt.sh');
    expect(storedFiles(env).some((name) => name.includes('\u0000'))).toBe(false);
  });

  test('300 characters: the key keeps 100 with the extension, the display name 255', async ({ env }) => {
    const sessionId = await env.newSession();
    const long = `${'a'.repeat(296)}.txt`;
    const stored = await upload(env, sessionId, [file(long, 'text/plain', 'long')]);
    expect(stored.status).toBe(201);
    const name = stored.body.url.slice('media/'.length + 37);
    expect(name).toBe(`${'a'.repeat(96)}.txt`);
    expect(stored.body.filename).toHaveLength(255);
  });
});

describe('media keys: only this session’s uploads, never a path', () => {
  test.for<[string, (key: string, media: string) => string]>([
    ['../', (key: string) => `media/../${key.slice(6)}`],
    ['../ into the data directory', () => 'media/../../master.key'],
    ['%2e%2e', (key: string) => `media%2F%2e%2e%2F${key.slice(6)}`],
    ['%252e%252e', (key: string) => `media%2F%252e%252e%2F${key.slice(6)}`],
    ['a backslash', (key: string) => `media%5C${key.slice(6)}`],
    ['an absolute path', () => '%2Fetc%2Fpasswd'],
    ['an absolute path inside the media directory', (key: string, media: string) => encodeURIComponent(path.join(media, key.slice(6)))],
    ['another prefix', (key: string) => `uploads/${key.slice(6)}`],
    ['no prefix', (key: string) => key.slice(6)],
    ['a NUL', (key: string) => `${key}%00.png`],
    ['a repeated key', (key: string) => `${key}&key=${key}`],
    ['an empty key', () => ''],
  ])('%s: 400, never a file', async ([_name, keyOf], { env }) => {
    const sessionId = await env.newSession();
    const stored = await upload(env, sessionId, [file('secret.txt', 'text/plain', 'secret')]);
    const response = await download(env, sessionId, keyOf(stored.body.url, mediaDir(env)));
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toMatch(/problem\+json/);
    expect(await response.text()).not.toBe('secret');
  });

  test("another session's key and an unknown key are 404; another user's session is 403", async ({ env }) => {
    const mine = await env.newSession();
    const theirs = await env.newSession();
    const stored = await upload(env, theirs, [file('theirs.txt', 'text/plain', 'private')]);
    expect((await download(env, mine, stored.body.url)).status).toBe(404);
    expect((await download(env, mine, `media/${randomUUID()}-theirs.txt`)).status).toBe(404);
    const other = await createTestUser(env.api.db);
    expect((await download(env, theirs, stored.body.url, other.auth)).status).toBe(403);
    expect(await (await download(env, theirs, stored.body.url)).text()).toBe('private');
  });
});

describe('file parts in messages', () => {
  const sendParts = (env: AgentEnv, sessionId: string, parts: unknown[]) =>
    call<{ status: string; reply: string }>(`${env.api.url}/session/${sessionId}`, { headers: env.user.auth, json: { parts } });
  const userContent = (env: AgentEnv) => env.fake.requests.at(-1)!.body.messages.find((message) => message.role === 'user')!.content;

  test('an image reaches the model as an image part, a text file as text, a PDF as a file part', async ({ env }) => {
    const sessionId = await env.newSession();
    const image = (await upload(env, sessionId, [file('dot.png', 'image/png', PNG)])).body;
    const notes = (await upload(env, sessionId, [file('notes.md', 'text/markdown', '# Notes\nThe code word is pelican.')])).body;
    const pdf = (await upload(env, sessionId, [file('doc.pdf', 'application/pdf', '%PDF-1.4 fake')])).body;
    const sent = await sendParts(env, sessionId, [
      { type: 'text', text: 'What do you see?' },
      { type: 'file', url: image.url },
      { type: 'file', url: notes.url, filename: 'my notes.md' },
      { type: 'file', url: pdf.url, mediaType: 'application/pdf' },
    ]);
    expect(sent.body.status).toBe('completed');
    expect(userContent(env)).toEqual([
      { type: 'text', text: 'What do you see?' },
      { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG.toString('base64')}` } },
      { type: 'text', text: '[file: my notes.md]\n# Notes\nThe code word is pelican.' },
      {
        type: 'file',
        file: { filename: 'doc.pdf', file_data: `data:application/pdf;base64,${Buffer.from('%PDF-1.4 fake').toString('base64')}` },
      },
    ]);
    // The stored part carries the uploaded type and name.
    const session = await call<{ messages: { parts: unknown[] }[] }>(`${env.api.url}/session/${sessionId}`, { headers: env.user.auth });
    expect(session.body.messages[0]!.parts[1]).toEqual({ type: 'file', url: image.url, mediaType: 'image/png', filename: 'dot.png' });

    // Later turns still see the files.
    await sendParts(env, sessionId, [{ type: 'text', text: 'And now?' }]);
    expect(JSON.stringify(env.fake.requests.at(-1)!.body.messages)).toContain(PNG.toString('base64'));
  });

  test.for<[string, (own: Uploaded, foreign: Uploaded, zip: Uploaded) => unknown, RegExp]>([
    ['a type no model reads', (_own, _foreign, zip) => ({ type: 'file', url: zip.url }), /application\/zip.*cannot read/],
    ["another session's upload", (_own, foreign) => ({ type: 'file', url: foreign.url }), /upload for this session/],
    ['a url that is not a media key', () => ({ type: 'file', url: 'media/../../etc/passwd' }), /media key/],
    ['a mediaType other than the uploaded one', (own) => ({ type: 'file', url: own.url, mediaType: 'image/jpeg' }), /image\/png/],
  ])('%s: 400 at send time and nothing stored', async ([_name, part, detail], { env }) => {
    const sessionId = await env.newSession();
    const own = (await upload(env, sessionId, [file('dot.png', 'image/png', PNG)])).body;
    const zip = (await upload(env, sessionId, [file('archive.zip', 'application/zip', 'PK')])).body;
    const foreign = (await upload(env, await env.newSession(), [file('dot.png', 'image/png', PNG)])).body;
    const response = await sendParts(env, sessionId, [{ type: 'text', text: 'look' }, part(own, foreign, zip)]);
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({
      detail: expect.stringMatching(detail),
      errors: [{ path: expect.stringMatching(/^\/parts\/1\//) }],
    });
    expect((await env.events(sessionId)).map((event) => event.type)).toEqual(['session.created']);
    expect(env.fake.requests).toHaveLength(0);
  });

  test("a fork can use its origin's uploads; the origin cannot use the fork's", async ({ env }) => {
    const origin = await env.newSession();
    const image = (await upload(env, origin, [file('dot.png', 'image/png', PNG)])).body;
    await sendParts(env, origin, [{ type: 'file', url: image.url }]);
    const fork = (await call<{ id: string }>(`${env.api.url}/session/${origin}/fork`, { method: 'POST', headers: env.user.auth })).body.id;

    expect(Buffer.from(await (await download(env, fork, image.url)).arrayBuffer())).toEqual(PNG);
    const sent = await sendParts(env, fork, [{ type: 'text', text: 'describe it again' }]);
    expect(sent.body.status).toBe('completed');
    expect(JSON.stringify(env.fake.requests.at(-1)!.body.messages)).toContain(PNG.toString('base64'));

    const forkOnly = (await upload(env, fork, [file('later.txt', 'text/plain', 'fork only')])).body;
    expect((await download(env, origin, forkOnly.url)).status).toBe(404);
    expect((await sendParts(env, origin, [{ type: 'file', url: forkOnly.url }])).status).toBe(400);
  });
});
