// A send taken by a local activity (the session workflow reading its inbox) that outlasts its workflow
// task while the running turn ends must leave a session history its own workflow code replays (what a
// worker taking the session over
// does: after a crash, a restart, a deploy). On a busy worker a recording can take that long: the task
// is extended (Temporal's workflow-task heartbeat) and the turn's end arrives meanwhile; the replay then
// sees the recording's result in the same activation as the turn's end, where the first run saw them
// one after the other. Found by `npm run soak`: a session whose next task failed for good with
// "[TMPRL1100] Nondeterminism error: Missing associated machine for LocalActivity" took no more sends.
//
// Here a worker of the test's own takes messages marked SLOW<ms> that many milliseconds late; the
// delays sweep the moment the extended task is handed back (80% of the 10 s task timeout), where the
// two orders part; each history is replayed against the workflow bundle, and at least one of them
// must hold that case.
// Before the fix, 7 to 10 of the 17 failed to replay in each of two runs. With the late send made after the
// first turn has started, 35 of the 43 reached the case with both cores busy elsewhere (2026-11-29).
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, inject, test } from 'vitest';
import { NativeConnection, Worker } from '@temporalio/worker';
import { Client, Connection } from '@temporalio/client';
import { createActivities } from '../../activities/index.ts';
import { AbortNotices } from '../../activities/turn/abort-notices.ts';
import { temporalWorkerDataConverter } from '../../lib/temporal-data-converter.ts';
import { converterPaths } from '../../workers/workflow-code.ts';
import { startAgentEnv, type AgentEnv } from '../helpers/harness/agent-env.ts';
import { testConfig } from '../helpers/harness/env.ts';
import { installQuietRuntime } from '../helpers/harness/quiet-runtime.ts';
import { createLogger } from '../../lib/logger.ts';
import { createPool, type Db } from '../../store/db.ts';
import { loadMasterKeys } from '../../lib/master-key.ts';
import { call } from '../helpers/client/request.ts';
import { sessionWorkflowId } from '../../lib/workflow-safe/workflow-ids.ts';
import proto from '@temporalio/proto';
import type { History } from '@temporalio/common/lib/proto-utils.js';

// The proto package is CommonJS: its namespace comes through the default import under plain Node.
const EventType = proto.temporal.api.enums.v1.EventType;

/**
 * Recording delays around 8 s, where a task extended at 80% of its 10 s timeout is handed back, and two well
 * past it, which reach the case whenever the first turn ends within them.
 */
const DELAYS_MS = [...Array.from({ length: 41 }, (_, index) => 7_840 + index * 10), 8_600, 9_200];

let env: AgentEnv;
let worker: Worker;
let running: Promise<void>;
let db: Db;
let abortNotices: AbortNotices;
let nativeConnection: NativeConnection;
let connection: Connection;
let client: Client;
let config: ReturnType<typeof testConfig>;

beforeAll(async () => {
  // The delays are set around a 10 s task timeout (Temporal's default; the service's is shorter).
  env = await startAgentEnv(
    { TASK_QUEUE: `test-${randomUUID()}`, SESSION_IDLE_MS: '2000', WORKFLOW_TASK_TIMEOUT_MS: '10000' },
    { inProcessWorker: false },
  );
  config = testConfig({ ...env.env });
  db = createPool(inject('databaseUrl'), 5, config.database);
  const logger = createLogger({ level: 'silent' });
  abortNotices = new AbortNotices({ databaseUrl: inject('databaseUrl'), logger });
  const activities = createActivities({ db, logger, config, masterKeys: loadMasterKeys(config), abortNotices });
  // The API records the message; the session workflow's take of it (a local activity) is what is late.
  const lateTake: typeof activities.takeWaitingSends = async (input) => {
    const sends = await activities.takeWaitingSends(input);
    const { rows } = await db.query<{ parts: unknown }>('SELECT parts FROM messages WHERE id = ANY($1)', [
      sends.flatMap((send) => ('messageId' in send ? [send.messageId] : [])),
    ]);
    const late = /SLOW(\d+)/.exec(JSON.stringify(rows));
    if (late) await new Promise((resolve) => setTimeout(resolve, Number(late[1])));
    return sends;
  };
  installQuietRuntime();
  nativeConnection = await NativeConnection.connect({ address: inject('temporalAddress') });
  worker = await Worker.create({
    connection: nativeConnection,
    namespace: 'default',
    taskQueue: config.taskQueue,
    activities: { ...activities, takeWaitingSends: lateTake },
    dataConverter: temporalWorkerDataConverter(config, loadMasterKeys(config), converterPaths()),
    workflowBundle: { codePath: inject('workflowBundlePath') },
  });
  running = worker.run();
  connection = await Connection.connect({ address: inject('temporalAddress') });
  client = new Client({ connection, namespace: 'default' });
}, 120_000);

afterAll(async () => {
  worker?.shutdown();
  await running;
  await Promise.all([nativeConnection?.close(), connection?.close(), abortNotices?.close()]);
  await db?.end();
  await env?.close();
});

/**
 * The case this test is about, in the history: after the late send's signal, a workflow task ended (it was
 * extended) before the recording's marker, and the first turn's end came in between.
 */
function recordingOutlastedItsTask(history: History): boolean {
  const events = history.events ?? [];
  const signals = events.flatMap((event, index) => (event.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED ? [index] : []));
  const lateSignal = signals[1];
  // The first turn's end (the turn runs in the session workflow): the completion of its one model step,
  // the history's first activity.
  const turnEnd = events.findIndex((event) => event.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED);
  const recorded = events.findIndex((event, index) => {
    if (lateSignal === undefined || index <= lateSignal) return false;
    const details = event.markerRecordedEventAttributes?.details?.data?.payloads?.[0]?.data;
    return details !== undefined && details !== null && Buffer.from(details).toString('utf8').includes('takeWaitingSends');
  });
  const taskEnded = events.findIndex(
    (event, index) => lateSignal !== undefined && index > lateSignal && event.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED,
  );
  return lateSignal !== undefined && taskEnded !== -1 && taskEnded < turnEnd && turnEnd < recorded;
}

const send = (sessionId: string, text: string) =>
  call(`${env.api.url}/session/${sessionId}?async=1`, { headers: env.user.auth, json: { parts: [{ type: 'text', text }] } });

test('a send recorded late while the running turn ends leaves a history that replays', { timeout: 120_000 }, async () => {
  // The first turn streams for about three seconds; the late send arrives while it does.
  env.fake.setHandler((request) =>
    JSON.stringify(request.body.messages).includes('SLOW')
      ? { text: 'second' }
      : { text: Array.from({ length: 30 }, (_, i) => `w${i} `), chunkDelayMs: 100 },
  );
  let outlasted = 0;
  const histories = await Promise.all(
    DELAYS_MS.map(async (delay) => {
      const sessionId = await env.newSession();
      expect((await send(sessionId, 'first')).status).toBe(202);
      // The late send must come in a take of its own, while the first turn runs: sent after a fixed pause, on a
      // loaded machine it could join the first take, be late there, and start the first turn after its own
      // recording (on 2026-11-29 the whole suite around it did that to every one of 41 sessions).
      await env.waitForEvents(sessionId, (events) => events.some((event) => event.type === 'turn.started'), 30_000);
      expect((await send(sessionId, `SLOW${delay}`)).status).toBe(202);
      await env.waitForEvents(sessionId, (events) => events.filter((event) => event.type === 'turn.completed').length === 2, 60_000);
      const workflowId = sessionWorkflowId(sessionId);
      const history = await client.workflow.getHandle(workflowId).fetchHistory();
      if (recordingOutlastedItsTask(history)) outlasted += 1;
      return { workflowId, history, delay };
    }),
  );
  // Replayed once every session is done, by one replay worker. A replay loads the workflow bundle and holds this
  // process's thread meanwhile, and this process also runs the turns' worker and the API: 43 replays among the
  // live turns were the likely cause of two loaded CI runs' failures on 2026-12-02 (a step retried and its turn
  // failed; a send answered 503).
  const delayOf = new Map(histories.map(({ workflowId, delay }) => [workflowId, delay]));
  const outcomes: string[] = [];
  let replayed = 0;
  const replays = Worker.runReplayHistories(
    {
      workflowBundle: { codePath: inject('workflowBundlePath') },
      dataConverter: temporalWorkerDataConverter(config, loadMasterKeys(config), converterPaths()),
    },
    histories.map(({ workflowId, history }) => ({ workflowId, history })),
  );
  for await (const replay of replays) {
    replayed += 1;
    if (replay.error) outcomes.push(`recorded ${delayOf.get(replay.workflowId)} ms late: ${replay.error.message}`);
  }
  expect(outcomes).toEqual([]);
  expect(replayed).toBe(DELAYS_MS.length);
  // The sweep did reach the case: the shorter delays end before the task is extended, the longer ones after.
  // Where the two part moves with the machine's load, so the band is wide and one is asked for.
  expect(outlasted).toBeGreaterThanOrEqual(1);
});
