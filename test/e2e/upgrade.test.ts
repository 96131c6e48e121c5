// An upgrade, as an operator runs one: the previous release (releases.json, its code taken from its
// commit) runs `npm start` on a DATA_DIR while a turn waits on ask_my_user; it is stopped, and this code
// starts on the same DATA_DIR (same PostgreSQL, same Temporal history, migrations applied on top). The
// approval the old code asked is answered through this code's API, and the same turn completes: the
// session, turn and approval workflows started by the previous release replay on this release's code
// (docs/operating.md, "Upgrades and workflow versions").
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { waitFor } from '../../dev/ports.ts';
import { pickLauncherPorts, READY, startLauncher, type RunningLauncher } from '../helpers/harness/launcher.ts';
import { askedInTurn, eventsOf, launchedApi, portsClosed, waitForEvent } from '../helpers/harness/launched-service.ts';
import { startFakeModel } from '../helpers/fakes/fake-model.ts';
import { call } from '../helpers/client/request.ts';

interface Release {
  version: string;
  commit: string;
}

const { releases } = JSON.parse(fs.readFileSync('releases.json', 'utf8')) as { releases: Release[] };
const previous = releases.at(-1)!;
const current = (JSON.parse(fs.readFileSync('package.json', 'utf8')) as { version: string }).version;
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-service-upgrade-'));
fs.chmodSync(scratch, 0o755);
let launcher: RunningLauncher | undefined;
const fake = await startFakeModel();

afterAll(async () => {
  launcher?.process.kill('SIGTERM');
  await launcher?.exited;
  await fake.close();
  fs.rmSync(scratch, { recursive: true, force: true });
});

/** The previous release's tree, from its commit, with this checkout's packages (the lockfile is the same). */
function previousReleaseTree(release: Release): string {
  const dir = path.join(scratch, `release-${release.version}`);
  fs.mkdirSync(dir);
  const archived = spawnSync('bash', ['-c', `git archive --format=tar ${release.commit} | tar -x -C ${JSON.stringify(dir)}`], {
    encoding: 'utf8',
  });
  if (archived.status !== 0) {
    throw new Error(
      `release ${release.version}'s commit ${release.commit} could not be read from this clone (a shallow one? ` +
        `\`git fetch --unshallow\`): ${archived.stderr}`,
    );
  }
  fs.symlinkSync(path.resolve('node_modules'), path.join(dir, 'node_modules'));
  return dir;
}

test(
  `a turn waiting on an approval the previous release (${previous.version}) asked completes once answered after the upgrade`,
  { timeout: 600_000 },
  async () => {
    // An upgrade from this very code would prove nothing: releases.json lists only releases before it.
    expect(previous.version).not.toBe(current);
    const dataDir = path.join(scratch, 'data');
    const ports = await pickLauncherPorts();
    const env = { OPENAI_COMPATIBLE_BASE_URL: fake.baseUrl, OPENAI_COMPATIBLE_API_KEY: 'test-key' };

    launcher = startLauncher(dataDir, ports, env, { cwd: previousReleaseTree(previous) });
    const api = launchedApi(ports, await launcher.waitForOutput(READY, 240_000));
    const { sessionId, approvalId } = await askedInTurn(api, fake, {
      question: 'Drop the old index?',
      options: ['drop', 'keep'],
      reply: 'Dropped it, as you said.',
    });
    // A deploy stops the old processes as an operator's Ctrl-C or a service manager does.
    launcher.process.kill('SIGTERM');
    await launcher.exited;
    await portsClosed(ports);

    launcher = startLauncher(dataDir, ports, env);
    await launcher.waitForOutput(READY, 240_000);
    const stored = await call<{ status: string }>(`${api.base}/approval/${approvalId}`, { headers: api.auth });
    expect(stored.body.status).toBe('unanswered');

    const answered = await call(`${api.base}/approval/${approvalId}/answer`, { headers: api.auth, json: { choice: 'drop' } });
    expect(answered.status).toBe(200);
    // A run this code cannot replay waits (TMPRL1100 in the worker's log) and never completes its turn.
    const events = await waitForEvent(api, sessionId, 'turn.completed', 90_000).catch((error: unknown) => {
      throw new Error(`${String(error)}; the service's console ends with:\n${launcher!.output().slice(-4000)}`, { cause: error });
    });
    const reply = events.filter((event) => event.type === 'message.completed').at(-1) as { message: { parts: Array<{ text?: string }> } };
    expect(reply.message.parts[0]?.text).toBe('Dropped it, as you said.');
    const toolMessage = fake.requests.at(-1)!.body.messages.find((message) => message.role === 'tool');
    expect(JSON.parse(String(toolMessage?.content))).toMatchObject({ choice: 'drop' });
    // The session goes on under this release: a later send runs a turn of its own.
    fake.enqueue({ text: 'Nothing else to tidy.' });
    await call(`${api.base}/session/${sessionId}?async=1`, {
      headers: api.auth,
      json: { parts: [{ type: 'text', text: 'Anything else?' }] },
    });
    await waitFor(
      async () => (await eventsOf(api, sessionId)).filter((event) => event.type === 'turn.completed').length === 2,
      60_000,
      'the second turn',
    );
  },
);
