// An approval waits for days, and machines restart meanwhile. Here the whole service (`npm start`:
// PostgreSQL, the Temporal dev server, the API, the worker) is killed with SIGKILL while a turn waits
// on ask_my_user, then started again: the approval is still answerable, and answering it resumes
// the same turn, which completes with the model seeing the choice.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { pickLauncherPorts, READY, startLauncher, type RunningLauncher } from '../helpers/harness/launcher.ts';
import { askedInTurn, launchedApi, portsClosed, waitForEvent } from '../helpers/harness/launched-service.ts';
import { startFakeModel } from '../helpers/fakes/fake-model.ts';
import { call } from '../helpers/client/request.ts';

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-service-approval-'));
fs.chmodSync(scratch, 0o755);
let launcher: RunningLauncher | undefined;
const fake = await startFakeModel();

afterAll(async () => {
  launcher?.process.kill('SIGTERM');
  await launcher?.exited;
  await fake.close();
  fs.rmSync(scratch, { recursive: true, force: true });
});

test('a waiting approval survives SIGKILL of every process; the answer then completes the turn', { timeout: 400_000 }, async () => {
  const dataDir = path.join(scratch, 'data');
  const ports = await pickLauncherPorts();
  const env = { OPENAI_COMPATIBLE_BASE_URL: fake.baseUrl, OPENAI_COMPATIBLE_API_KEY: 'test-key' };

  launcher = startLauncher(dataDir, ports, env);
  const api = launchedApi(ports, await launcher.waitForOutput(READY, 150_000));
  const { sessionId, approvalId } = await askedInTurn(api, fake, {
    question: 'Wipe the staging database?',
    options: ['wipe', 'keep'],
    reply: 'Kept it, as you said.',
  });

  launcher.process.kill('SIGKILL');
  await launcher.exited;
  await portsClosed(ports);

  launcher = startLauncher(dataDir, ports, env);
  await launcher.waitForOutput(READY, 150_000);
  const stored = await call<{ status: string }>(`${api.base}/approval/${approvalId}`, { headers: api.auth });
  expect(stored.body.status).toBe('unanswered');

  const answered = await call(`${api.base}/approval/${approvalId}/answer`, {
    headers: api.auth,
    json: { choice: 'keep', note: 'we still need it' },
  });
  expect(answered.status).toBe(200);
  const events = await waitForEvent(api, sessionId, 'turn.completed', 60_000);
  const reply = events.filter((event) => event.type === 'message.completed').at(-1) as { message: { parts: Array<{ text?: string }> } };
  expect(reply.message.parts[0]?.text).toBe('Kept it, as you said.');
  const toolMessage = fake.requests.at(-1)!.body.messages.find((message) => message.role === 'tool');
  expect(JSON.parse(String(toolMessage?.content))).toEqual({ choice: 'keep', note: 'we still need it' });
});
