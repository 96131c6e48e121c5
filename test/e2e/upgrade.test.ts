// An upgrade, as an operator runs one: the previous release (releases.json, its code taken from its
// commit) runs its launcher on a DATA_DIR, and a worker of this code joins it, as in a rolling deploy
// (workers first): sessions the old code started run their model steps on the new worker (the old
// worker's one activity slot is held), turns that call a tool and then ask their user (ask_my_user):
// the old code's turn branches on what the new code's steps return. Then the old processes stop, and this code starts on the same DATA_DIR
// (same PostgreSQL, same Temporal history, migrations applied on top). The approvals the old code asked
// are answered through this code's API, and the same turns complete: the session, turn and approval
// workflows started by the previous release, partly served by this code's worker, replay on this code
// (docs/operating.md, "Upgrades and workflow versions").
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { waitFor } from '../../dev/ports.ts';
import { Client, Connection } from '@temporalio/client';
import {
  launcherEnv,
  pickLauncherPorts,
  READY,
  startLauncher,
  type LauncherPorts,
  type RunningLauncher,
  withWorkflowBundle,
} from '../helpers/harness/launcher.ts';
import { eventsOf, launchedApi, portsClosed, waitForEvent, type LaunchedApi } from '../helpers/harness/launched-service.ts';
import { lastUserText, startFakeModel, type FakeRequest } from '../helpers/fakes/fake-model.ts';
import { call } from '../helpers/client/request.ts';
import { EMBEDDED_DATABASE } from '../../dev/embedded-postgres.ts';
import { WORKER_NODE_FLAGS } from '../../workers/node-flags.ts';
import { sessionWorkflowId } from '../../lib/workflow-safe/workflow-ids.ts';
import type { SessionEvent } from '../../contract/events.ts';

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
let newWorker: ChildProcess | undefined;
const fake = await startFakeModel();

afterAll(async () => {
  newWorker?.kill('SIGKILL');
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

/** The message whose model step holds the old worker's one activity slot while `holding`. */
const HOLD = 'Hold this worker';
let holding = true;

/**
 * Each session's turn: it asks the time (a built-in tool), then asks its user, then answers. Decided by
 * how many tool results the conversation holds, so sessions running at once each get their own script.
 */
function scriptedTurn(request: FakeRequest) {
  if (holding && lastUserText(request) === HOLD) return { stallAfterChunks: 0 };
  const toolResults = request.body.messages.filter((message) => message.role === 'tool').length;
  const turns = request.body.messages.filter((message) => message.role === 'user').length;
  if (turns > 1) return { text: 'Nothing else to tidy.' };
  if (toolResults === 0) return { toolCalls: [{ name: 'current_time', arguments: {} }] };
  if (toolResults === 1)
    return { toolCalls: [{ name: 'ask_my_user', arguments: { question: 'Drop the old index?', options: ['drop', 'keep'] } }] };
  return { text: 'Dropped it, as you said.' };
}

/**
 * A worker of this code on the launcher's PostgreSQL and Temporal, as a rolling deploy starts one;
 * resolves once it polls (its log says so).
 */
async function startNewWorker(dataDir: string, ports: LauncherPorts, env: Record<string, string>): Promise<ChildProcess> {
  const password = fs.readFileSync(path.join(dataDir, 'postgres.password'), 'utf8').trim();
  const child = spawn(process.execPath, [...WORKER_NODE_FLAGS, '--import', 'tsx', 'workers/main.ts'], {
    env: {
      ...launcherEnv(dataDir, ports, env),
      DATABASE_URL: `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${ports.postgres}/${EMBEDDED_DATABASE}`,
      TEMPORAL_ADDRESS: `127.0.0.1:${ports.temporal}`,
      LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the new worker did not poll within 120 s:\n${output}`)), 120_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
      if (output.includes('worker polling')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => reject(new Error(`the new worker exited (${code}) before polling:\n${output}`)));
  });
  return child;
}

/** Who ran what in a session's run: the worker of its first workflow task, and of each model step. */
interface RunWorkers {
  firstTask: string | undefined;
  stepsScheduled: number;
  steps: string[];
}

async function runWorkers(ports: LauncherPorts, sessionIds: string[]): Promise<RunWorkers[]> {
  const connection = await Connection.connect({ address: `127.0.0.1:${ports.temporal}` });
  try {
    const client = new Client({ connection });
    return await Promise.all(
      sessionIds.map(async (sessionId) => {
        const events = (await client.workflow.getHandle(sessionWorkflowId(sessionId)).fetchHistory()).events ?? [];
        const stepIds = new Set(
          events
            .filter((event) => event.activityTaskScheduledEventAttributes?.activityType?.name === 'runModelStep')
            .map((event) => String(event.eventId)),
        );
        return {
          stepsScheduled: stepIds.size,
          firstTask:
            events.find((event) => event.workflowTaskCompletedEventAttributes)?.workflowTaskCompletedEventAttributes?.identity ?? undefined,
          steps: events
            .filter((event) => stepIds.has(String(event.activityTaskStartedEventAttributes?.scheduledEventId)))
            .map((event) => event.activityTaskStartedEventAttributes?.identity ?? ''),
        };
      }),
    );
  } finally {
    await connection.close();
  }
}

async function turnsCompleted(api: LaunchedApi, sessionId: string): Promise<SessionEvent[]> {
  return (await eventsOf(api, sessionId)).filter((event) => event.type === 'turn.completed');
}

const SESSIONS = 6;

test(
  `sessions the previous release (${previous.version}) started, served by both releases' workers in a rolling deploy, complete their waiting turns after the upgrade`,
  { timeout: 600_000 },
  async () => {
    // An upgrade from this very code would prove nothing: releases.json lists only releases before it.
    expect(previous.version).not.toBe(current);
    const dataDir = path.join(scratch, 'data');
    const ports = await pickLauncherPorts();
    const env = { OPENAI_COMPATIBLE_BASE_URL: fake.baseUrl, OPENAI_COMPATIBLE_API_KEY: 'test-key' };
    fake.setHandler(scriptedTurn);

    // The old release's worker runs one activity at a time, and a model step that never ends holds it:
    // the sessions' workflow tasks run on the old code, their model steps on the new worker.
    launcher = startLauncher(dataDir, ports, { ...env, WORKER_MAX_CONCURRENT_ACTIVITIES: '1' }, { cwd: previousReleaseTree(previous) });
    const api = launchedApi(ports, await launcher.waitForOutput(READY, 240_000));
    const deployed = await call(`${api.base}/deploy`, {
      headers: api.auth,
      json: { name: 'careful', model: { providerId: 'openai-compatible', modelId: 'fake-model' }, mcps: ['time'] },
    });
    expect(deployed.status).toBe(201);
    const send = async (text: string) => {
      const session = await call<{ id: string }>(`${api.base}/agent/careful/session`, { headers: api.auth, json: {} });
      await call(`${api.base}/session/${session.body.id}?async=1`, { headers: api.auth, json: { parts: [{ type: 'text', text }] } });
      return session.body.id;
    };
    await send(HOLD);
    await waitFor(async () => fake.requests.some((request) => lastUserText(request) === HOLD), 60_000, 'the held step');
    const sessionIds: string[] = [];
    for (let index = 0; index < SESSIONS; index++) sessionIds.push(await send('Tidy the indexes'));
    // Each session's first workflow task, on the old code, has scheduled its first model step. A send is
    // answered before the signal that starts its session's workflow goes out: until then Temporal answers
    // NOT_FOUND (gRPC code 5) for its history, which here means "not started yet".
    const started = () =>
      runWorkers(ports, sessionIds).catch((error: unknown) => {
        if ((error as { code?: number }).code === 5) return undefined;
        throw error;
      });
    await waitFor(async () => (await started())?.every((run) => run.stepsScheduled > 0) ?? false, 60_000, 'the runs to start');

    // This code's bundle where its worker looks for it (after the old worker kept its own there: a worker that
    // bundles removes the older bundles it finds), so the new worker does not run webpack as it joins.
    newWorker = await startNewWorker(withWorkflowBundle(dataDir), ports, env);
    const approvalIds: string[] = [];
    for (const sessionId of sessionIds) {
      const asked = await waitForEvent(api, sessionId, 'approval.requested', 90_000);
      approvalIds.push((asked.find((event) => event.type === 'approval.requested') as { approvalId: string }).approvalId);
    }
    // The mix this test is about: runs the old code started, whose model steps (the first ones too) this code ran.
    const newIdentity = `${newWorker.pid}@`;
    for (const run of await runWorkers(ports, sessionIds)) {
      expect(run.firstTask?.startsWith(newIdentity)).toBe(false);
      expect(run.steps.length).toBe(2);
      expect(run.steps.every((identity) => identity.startsWith(newIdentity))).toBe(true);
    }
    holding = false;

    // The old processes stop; this code takes over, as the API's deploy finishes the rollout.
    newWorker.kill('SIGTERM');
    await new Promise((resolve) => newWorker!.once('exit', resolve));
    launcher.process.kill('SIGTERM');
    await launcher.exited;
    await portsClosed(ports);
    launcher = startLauncher(dataDir, ports, env);
    await launcher.waitForOutput(READY, 240_000);

    for (const approvalId of approvalIds) {
      const stored = await call<{ status: string }>(`${api.base}/approval/${approvalId}`, { headers: api.auth });
      expect(stored.body.status).toBe('unanswered');
      const answered = await call(`${api.base}/approval/${approvalId}/answer`, { headers: api.auth, json: { choice: 'drop' } });
      expect(answered.status).toBe(200);
    }
    // A run this code cannot replay waits (TMPRL1100 in the worker's log) and never completes its turn.
    for (const sessionId of sessionIds) {
      const events = await waitForEvent(api, sessionId, 'turn.completed', 90_000).catch((error: unknown) => {
        throw new Error(`${String(error)}; the service's console ends with:\n${launcher!.output().slice(-4000)}`, { cause: error });
      });
      const reply = events.filter((event) => event.type === 'message.completed').at(-1) as { message: { parts: Array<{ text?: string }> } };
      expect(reply.message.parts[0]?.text).toBe('Dropped it, as you said.');
    }
    const answers = fake.requests.filter((request) => request.body.messages.filter((message) => message.role === 'tool').length === 2);
    for (const request of answers) {
      expect(JSON.parse(String(request.body.messages.findLast((message) => message.role === 'tool')?.content))).toMatchObject({
        choice: 'drop',
      });
    }
    // A session goes on under this release: a later send runs a turn of its own.
    await call(`${api.base}/session/${sessionIds[0]}?async=1`, {
      headers: api.auth,
      json: { parts: [{ type: 'text', text: 'Anything else?' }] },
    });
    await waitFor(async () => (await turnsCompleted(api, sessionIds[0]!)).length === 2, 60_000, 'the second turn');
  },
);
