// An approval waits for days, and machines restart meanwhile. Here the whole service (`npm start`:
// PostgreSQL, the Temporal dev server, the API, the worker) is killed with SIGKILL while a turn waits
// on ask_my_user, then started again: the approval is still answerable, and answering it resumes
// the same turn, which completes with the model seeing the choice.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { canConnect, waitFor } from '../../dev/ports.ts';
import { pickLauncherPorts, startLauncher, type RunningLauncher } from '../helpers/harness/launcher.ts';
import { startFakeModel } from '../helpers/fakes/fake-model.ts';
import { call } from '../helpers/client/request.ts';
import type { SessionEvent } from '../../contract/events.ts';

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

async function eventsOf(base: string, auth: Record<string, string>, sessionId: string): Promise<SessionEvent[]> {
  const page = await call<{ events: SessionEvent[] }>(`${base}/session/${sessionId}/events?after=0&limit=1000`, { headers: auth });
  return page.body?.events ?? [];
}

async function waitForEvent(base: string, auth: Record<string, string>, sessionId: string, type: string, timeoutMs: number) {
  let events: SessionEvent[] = [];
  await waitFor(
    async () => {
      events = await eventsOf(base, auth, sessionId).catch(() => []);
      return events.some((event) => event.type === type);
    },
    timeoutMs,
    `event ${type}`,
  );
  return events;
}

test('a waiting approval survives SIGKILL of every process; the answer then completes the turn', { timeout: 400_000 }, async () => {
  const dataDir = path.join(scratch, 'data');
  const ports = await pickLauncherPorts();
  const base = `http://127.0.0.1:${ports.api}`;
  const env = { OPENAI_COMPATIBLE_BASE_URL: fake.baseUrl, OPENAI_COMPATIBLE_API_KEY: 'test-key' };

  launcher = startLauncher(dataDir, ports, env);
  const output = await launcher.waitForOutput(/ready\. Ctrl-C stops everything/, 150_000);
  const auth = { authorization: `Bearer ${/ADMIN_API_KEY=(sk_[0-9a-z]+)/.exec(output)![1]}` };

  const deployed = await call(`${base}/deploy`, {
    headers: auth,
    json: { name: 'careful', model: { providerId: 'openai-compatible', modelId: 'fake-model' } },
  });
  expect(deployed.status).toBe(201);
  const session = await call<{ id: string }>(`${base}/agent/careful/session`, { headers: auth, json: {} });
  fake.enqueue(
    {
      toolCalls: [
        { id: 'call_restart', name: 'ask_my_user', arguments: { question: 'Wipe the staging database?', options: ['wipe', 'keep'] } },
      ],
    },
    { text: 'Kept it, as you said.' },
  );
  await call(`${base}/session/${session.body.id}?async=1`, {
    headers: auth,
    json: { parts: [{ type: 'text', text: 'Clean up staging' }] },
  });
  const asked = await waitForEvent(base, auth, session.body.id, 'approval.requested', 60_000);
  const approvalId = (asked.find((event) => event.type === 'approval.requested') as { approvalId: string }).approvalId;

  launcher.process.kill('SIGKILL');
  await launcher.exited;
  await waitFor(
    async () => (await Promise.all(Object.values(ports).map((port) => canConnect(port)))).every((open) => !open),
    60_000,
    'ports to close',
  );

  launcher = startLauncher(dataDir, ports, env);
  await launcher.waitForOutput(/ready\. Ctrl-C stops everything/, 150_000);
  const stored = await call<{ status: string }>(`${base}/approval/${approvalId}`, { headers: auth });
  expect(stored.body.status).toBe('unanswered');

  const answered = await call(`${base}/approval/${approvalId}/answer`, {
    headers: auth,
    json: { choice: 'keep', note: 'we still need it' },
  });
  expect(answered.status).toBe(200);
  const events = await waitForEvent(base, auth, session.body.id, 'turn.completed', 60_000);
  const reply = events.filter((event) => event.type === 'message.completed').at(-1) as { message: { parts: Array<{ text?: string }> } };
  expect(reply.message.parts[0]?.text).toBe('Kept it, as you said.');
  const toolMessage = fake.requests.at(-1)!.body.messages.find((message) => message.role === 'tool');
  expect(JSON.parse(String(toolMessage?.content))).toEqual({ choice: 'keep', note: 'we still need it' });
});
