// `npm run soak`: the service as production runs it (API processes behind a balancer, workers on one
// task queue, PostgreSQL, a Temporal server) under a load of sessions sending turns of every kind,
// questions and client tool calls answered the moment they show, while API processes and workers are
// SIGKILLed at random and started again. Then every invariant a user relies on is checked against what
// was stored and what the clients saw (soak/checks.ts). Prints one JSON document on stdout (progress on
// stderr); exits 1 when anything was violated. Settings: soak/options.ts.
import { setTimeout as sleep } from 'node:timers/promises';
import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { startInfra } from '../bench/infra.ts';
import { cleanups } from '../bench/cleanups.ts';
import { startFakeModel } from '../test/helpers/fakes/fake-model.ts';
import { startWebhookReceiver } from '../test/helpers/fakes/webhook-receiver.ts';
import { loadConfig } from '../lib/config.ts';
import { loadMasterKeys } from '../lib/master-key.ts';
import { temporalDataConverter } from '../lib/temporal-data-converter.ts';
import { scopesFor } from '../contract/scopes.ts';
import { createPool } from '../store/db.ts';
import { createUser } from '../store/users.ts';
import { insertKey } from '../store/api-keys.ts';
import { soakOptions, seededRandom } from './options.ts';
import { startFleet } from './fleet.ts';
import { startBalancer } from './balancer.ts';
import { soakHttp } from './http.ts';
import { followSession } from './reader.ts';
import { driveSession, type SentTurn } from './driver.ts';
import { runChaos } from './chaos.ts';
import { checkSoak, storedEvents } from './checks.ts';
import { soakFigures } from './figures.ts';
import { SOAK_APPROVER, modelHandler, soakBundle, soakHelperBundle } from './turn-kinds.ts';

const say = (line: string) => process.stderr.write(`[soak] ${line}\n`);
/** Sessions end their workflow this long after their last turn, so the end of the soak can see them all closed. */
const SESSION_IDLE_MS = 3_000;

async function main(): Promise<number> {
  const options = soakOptions();
  say(`options ${JSON.stringify(options)}`);
  const random = seededRandom(options.seed);
  const undo = cleanups(say);
  const stop = () => undo.run();
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void stop().finally(() => process.exit(130)));
  // A throw outside main's own awaits (a driver's callback) would end the process past the `finally`
  // below, leaving the Temporal server and PostgreSQL it started running: stop them first.
  for (const event of ['uncaughtException', 'unhandledRejection'] as const)
    process.once(event, (error: unknown) => {
      say(`failed: ${(error as Error)?.stack ?? String(error)}`);
      void stop().finally(() => process.exit(2));
    });

  try {
    const infra = await startInfra(new Set(['postgres', 'temporal']), say);
    undo.push('infrastructure', () => infra.stop());
    const fake = await startFakeModel();
    fake.setHandler(modelHandler);
    undo.push('fake model', () => fake.close());
    const receiver = await startWebhookReceiver();
    undo.push('channel receiver', () => receiver.close());

    const taskQueue = `soak-${randomUUID()}`;
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      NODE_ENV: 'development',
      LOG_LEVEL: 'warn',
      DATABASE_URL: infra.databaseUrl(),
      TEMPORAL_ADDRESS: infra.temporalAddress(),
      DATA_DIR: infra.scratchDir,
      SERVICE_MASTER_KEY: randomBytes(32).toString('base64url'),
      TASK_QUEUE: taskQueue,
      OPENAI_COMPATIBLE_BASE_URL: fake.baseUrl,
      OPENAI_COMPATIBLE_API_KEY: 'soak-key',
      OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8',
      RATE_LIMIT_POINTS: '1000000000',
      AUTH_FAILURE_LIMIT_POINTS: '1000000000',
      SESSION_IDLE_MS: String(SESSION_IDLE_MS),
      // A small window for the fake model: every session passes its threshold every few turns, so compactions
      // run throughout, and kills land in them too.
      MODEL_CONTEXT_WINDOWS: 'fake-model=3000',
    };
    const config = loadConfig(env as Record<string, string>);
    const logDir = path.join(infra.scratchDir, 'logs');
    fs.mkdirSync(logDir, { recursive: true });

    // The balancer starts first (its address is the public one); it learns the APIs' ports once they run.
    const live: { ports: () => number[] } = { ports: () => [] };
    const balancer = await startBalancer(() => live.ports());
    undo.push('balancer', () => balancer.close());
    env.PUBLIC_BASE_URL = balancer.url;
    say(`starting ${options.apis} API processes and ${options.workers} workers (logs in ${logDir})`);
    const fleet = await startFleet({ apis: options.apis, workers: options.workers, env, logDir });
    live.ports = () => fleet.apiPorts();
    undo.push('fleet', () => fleet.stop());

    const db = createPool(infra.databaseUrl(), 4);
    undo.push('database pool', () => db.end());
    const user = await createUser(db, { name: `soak-${randomBytes(4).toString('hex')}` });
    const { key } = await insertKey(db, { userId: user.id, name: 'soak', scopes: scopesFor(user) });
    const http = soakHttp(balancer.url, key);
    const connection = await Connection.connect({ address: infra.temporalAddress() });
    undo.push('Temporal connection', () => connection.close());
    const client = new Client({
      connection,
      namespace: config.temporalNamespace,
      dataConverter: temporalDataConverter(config, loadMasterKeys(config)),
    });

    // The second approver of `quorum` turns: no address, it votes by its link (soak/driver.ts).
    const approver = await http.json(`/approver/${SOAK_APPROVER}`, { method: 'PUT', body: {} });
    if (approver.status !== 201) throw new Error(`the approver was not stored: ${approver.status} ${JSON.stringify(approver.body)}`);
    const agentName = `soak-${randomBytes(4).toString('hex')}`;
    const helper = await http.json<{ ok: boolean }>('/deploy', { body: soakHelperBundle(`${agentName}-helper`) });
    if (!helper.body?.ok) throw new Error(`deploy failed: ${helper.status} ${JSON.stringify(helper.body)}`);
    const deployed = await http.json<{ ok: boolean }>('/deploy', { body: soakBundle(agentName, receiver.url, `${agentName}-helper`) });
    if (!deployed.body?.ok) throw new Error(`deploy failed: ${deployed.status} ${JSON.stringify(deployed.body)}`);
    const sessionIds: string[] = [];
    for (let i = 0; i < options.sessions; i++) {
      const opened = await http.json<{ id: string }>(`/agent/${agentName}/session`, { body: {} });
      if (opened.status !== 201) throw new Error(`a session was not opened: ${opened.status} ${JSON.stringify(opened.body)}`);
      sessionIds.push(opened.body.id);
    }
    const readers = sessionIds.map((id) => followSession(http, id));
    undo.push('readers', () => Promise.all(readers.map((reader) => reader.stop())));

    say(`load for ${options.seconds} s: ${options.sessions} sessions, a kill about every ${options.killEveryMs} ms`);
    const began = performance.now();
    const until = began + options.seconds * 1000;
    const chaos = runChaos(fleet, { meanMs: options.killEveryMs, until, random });
    const turnsBySession: SentTurn[][] = readers.map(() => []);
    const driving = readers.map((reader, index) =>
      driveSession(http, reader, turnsBySession[index]!, { label: `s${index + 1}`, until, random }),
    );
    const kills = await chaos;
    say(`load over (${kills.length} kills); letting the turns in flight finish`);
    const drained = await Promise.race([Promise.all(driving).then(() => true), sleep(options.drainSeconds * 1000).then(() => false)]);
    if (!drained) say(`some sessions were still busy after ${options.drainSeconds} s`);

    // Readers catch up with what is stored; session workflows go idle and end.
    await sleep(SESSION_IDLE_MS + 2_000);
    for (const reader of readers) {
      const last = (await storedEvents(db, reader.sessionId)).at(-1)?.seq ?? 0;
      for (let waited = 0; reader.lastSeq() < last && waited < 10_000; waited += 100) await sleep(100);
    }
    await Promise.all(readers.map((reader) => reader.stop()));

    say('checking');
    const checked = await checkSoak({
      db,
      client,
      taskQueue,
      sessions: readers.map((reader, index) => ({ reader, turns: turnsBySession[index]! })),
    });
    // The API hands an answer stored without its workflow taking it over (api/approvals/reconcile.ts),
    // which would hide the very fault the soak looks for: each one it had to is a violation.
    for (const file of fs.readdirSync(logDir)) {
      const handed = fs
        .readFileSync(path.join(logDir, file), 'utf8')
        .split('\n')
        .filter((line) => line.includes('was handed to the workflow'));
      for (const line of handed) checked.violations.push({ kind: 'stranded-answer', detail: `${file}: ${line.slice(0, 300)}` });
    }
    if (options.killEveryMs > 0 && options.seconds * 1000 >= 2 * options.killEveryMs && kills.length === 0) {
      checked.violations.push({ kind: 'no-kills', detail: 'the load ran without a single kill' });
    }
    if (!drained) {
      for (const turns of turnsBySession) {
        const last = turns.at(-1);
        if (!last || last.phase === 'done') continue;
        checked.violations.push({
          kind: 'drain-timeout',
          sessionId: last.sessionId,
          detail: `still ${last.phase} ${options.drainSeconds} s after the load: ${last.kind}/${last.mode} "${last.text}" ${last.messageId ?? ''}`,
        });
      }
    }
    const figures = soakFigures({
      turns: turnsBySession.flat(),
      kills,
      stored: checked.stored,
      approvals: checked.approvals,
      readers: {
        events: readers.reduce((sum, reader) => sum + reader.received.length, 0),
        reconnects: readers.reduce((sum, reader) => sum + reader.reconnects, 0),
      },
      retries: http.retries,
      failures: http.failures,
      refusedConnections: balancer.refused,
    });
    const byKind: Record<string, number> = {};
    for (const violation of checked.violations) byKind[violation.kind] = (byKind[violation.kind] ?? 0) + 1;
    const report = {
      soak: { ...options, startedAt: new Date(Date.now() - (performance.now() - began)).toISOString(), loadSeconds: options.seconds },
      ...figures,
      violations: { total: checked.violations.length, byKind, first: checked.violations.slice(0, 50) },
    };
    if (checked.violations.length > 0 || process.env.SOAK_KEEP_LOGS) {
      // The processes' logs go with the scratch directory: kept where a look at them can follow (SOAK_KEEP_LOGS: always).
      const kept = path.resolve('.data', `soak-logs-${Date.now()}`);
      fs.cpSync(logDir, kept, { recursive: true });
      // What it takes to read the run's workflow histories (payloads are encrypted with this throwaway key),
      // while the Temporal server lives (TEMPORAL_ADDRESS set: the soak does not stop a server it did not start).
      fs.writeFileSync(
        path.join(kept, 'run.json'),
        JSON.stringify({ temporalAddress: infra.temporalAddress(), taskQueue, serviceMasterKey: env.SERVICE_MASTER_KEY }, null, 2),
      );
      Object.assign(report.violations, { logs: kept });
    }
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    return checked.violations.length === 0 ? 0 : 1;
  } finally {
    await stop();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    say(`failed: ${(error as Error).stack ?? String(error)}`);
    process.exit(2);
  },
);
