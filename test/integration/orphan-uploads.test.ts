// An upload stores its file, then its row: a crash between the two (or during the write) leaves
// bytes that no row names. The API's housekeeping sweeps them once older than
// MEDIA_ORPHAN_GRACE_MS, and never a file a row names or one still within the grace period.
import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { expect, vi } from 'vitest';
import { apiTest } from '../helpers/harness/fixtures.ts';
import type { TestApi } from '../helpers/harness/api.ts';
import type { TestUser } from '../helpers/harness/users.ts';
import { call } from '../helpers/client/request.ts';

const test = apiTest({ HOUSEKEEPING_INTERVAL_MS: '200', MEDIA_ORPHAN_GRACE_MS: '60000' }, { ownDataDir: true });

const mediaDir = (api: TestApi) => path.join(api.config.dataDir, 'media');
const TWO_HOURS_AGO = new Date(Date.now() - 2 * 60 * 60 * 1000);

/** A file as a crash would leave it: written under the media directory, last touched two hours ago. */
function leftBehind(api: TestApi, relative: string, fresh = false): string {
  const file = path.join(mediaDir(api), relative);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, 'bytes nothing names');
  if (!fresh) fs.utimesSync(file, TWO_HOURS_AGO, TWO_HOURS_AGO);
  return file;
}

async function newSession(api: TestApi, user: TestUser): Promise<string> {
  const name = `orphans-${randomUUID().slice(0, 8)}`;
  const deployed = await call(`${api.url}/deploy`, {
    headers: user.auth,
    json: { name, model: { providerId: 'openai-compatible', modelId: 'fake-model' } },
  });
  expect(deployed.body.ok, deployed.text).toBe(true);
  const session = await call<{ id: string }>(`${api.url}/agent/${name}/session`, { headers: user.auth, json: {} });
  return session.body.id;
}

test('files no row names are swept after the grace period; uploads and recent files stay', async ({ api, user }) => {
  const sessionId = await newSession(api, user);
  const form = new FormData();
  form.append('file', new Blob(['kept: a row names it'], { type: 'text/plain' }), 'kept.txt');
  const response = await fetch(`${api.url}/session/${sessionId}/upload`, { method: 'POST', headers: user.auth, body: form });
  expect(response.status).toBe(201);
  const uploaded = (await response.json()) as { url: string };
  // As old as the orphans: only the missing row tells them apart.
  const keptFile = path.join(mediaDir(api), uploaded.url.slice('media/'.length));
  fs.utimesSync(keptFile, TWO_HOURS_AGO, TWO_HOURS_AGO);

  const orphan = leftBehind(api, `${randomUUID()}-crashed-before-its-row.png`);
  const unfinished = leftBehind(api, `.tmp/${randomUUID()}`);
  const recent = leftBehind(api, `${randomUUID()}-still-uploading.png`, true);

  await vi.waitFor(
    () => {
      expect(fs.existsSync(orphan)).toBe(false);
      expect(fs.existsSync(unfinished)).toBe(false);
    },
    { timeout: 20_000, interval: 100 },
  );
  expect(fs.existsSync(recent)).toBe(true);

  const download = await fetch(`${api.url}/session/${sessionId}/media?key=${uploaded.url}`, { headers: user.auth });
  expect(download.status).toBe(200);
  expect(await download.text()).toBe('kept: a row names it');
});
