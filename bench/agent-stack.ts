// The whole service in this process for the turn benchmarks, wired as in production: the real API
// (createApp, event hub, PostgreSQL-backed rate limiter) on 127.0.0.1, the real worker
// (createWorker with the service's workflow bundle and activities) on a task queue of its own, and
// the fake Chat Completions server reached through the `openai-compatible` provider. Only the model
// is fake. close() leaves a shared PostgreSQL or Temporal as it found them.
import { AbortNotices } from '../activities/turn/abort-notices.ts';
import { randomBytes, randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, type Worker } from '@temporalio/worker';
import { createApp } from '../api/app.ts';
import { HandOffs } from '../api/hand-offs.ts';
import { createEventHub } from '../api/streaming/event-hub.ts';
import { loadConfig, type Config } from '../lib/config.ts';
import { loadMasterKey } from '../lib/master-key.ts';
import { scopesFor } from '../contract/scopes.ts';
import { lazyTemporalClient } from '../lib/temporal.ts';
import { insertKey } from '../store/api-keys.ts';
import { createPool } from '../store/db.ts';
import { createUser } from '../store/users.ts';
import { startFakeModel, type FakeModel, type FakeModelOptions } from '../test/helpers/fakes/fake-model.ts';
import { createWorker, WORKFLOWS_PATH } from '../workers/create-worker.ts';
import type { Infra } from './infra.ts';
import { cleanups } from './cleanups.ts';
import { expectStatus, jsonHeaders, timedRequest, type TimedResponse } from './http-json.ts';
import { discardingLogger, installTemporalRuntime, workflowBundle } from './temporal-runtime.ts';
import { sessionWorkflowId } from '../lib/workflow-safe/workflow-ids.ts';

/** Longest any one turn may take before the benchmark gives up on it with an error. */
export const TURN_TIMEOUT_MS = 180_000;

export interface WaitingSendAnswer {
  messageId: string;
  reply: string;
  status: 'completed' | 'failed' | 'aborted';
  error?: string;
}

export interface AgentStack {
  url: string;
  /** Bearer key and JSON content type of the bench user. */
  headers: http.OutgoingHttpHeaders;
  fake: FakeModel;
  config: Config;
  temporal: { connection: NativeConnection; client: Client; namespace: string };
  /** Deploys a minimal agent (with `extra` bundle fields) through POST /deploy; answers its name. */
  deployAgent(extra?: Record<string, unknown>): Promise<string>;
  /** Opens a session through POST /agent/<name>/session; close() ends its workflow. */
  newSession(agentName: string): Promise<string>;
  /** The waiting send: answers when the turn has ended. Anything but a completed turn throws. */
  send(agent: http.Agent, sessionId: string, text: string): Promise<TimedResponse<WaitingSendAnswer>>;
  /** Another user of the same service (removed by close()), with the same three calls as it. */
  otherUser(): Promise<Pick<AgentStack, 'headers' | 'deployAgent' | 'newSession' | 'send'>>;
  close(): Promise<void>;
}

export interface AgentStackOptions {
  fake?: FakeModelOptions;
  /** Further settings for API and worker, e.g. DELTA_FLUSH_MS. */
  env?: Record<string, string>;
  /** Pool size of the API and of the worker each; production's default is 10. */
  poolSize?: number;
}

export async function startAgentStack(infra: Infra, log: (line: string) => void, options: AgentStackOptions = {}): Promise<AgentStack> {
  installTemporalRuntime();
  const undo = cleanups(log);
  const close = () => undo.run();

  try {
    const fake = await startFakeModel(options.fake);
    undo.push('fake model', () => fake.close());
    const config = loadConfig({
      NODE_ENV: 'development',
      DATABASE_URL: infra.databaseUrl(),
      TEMPORAL_ADDRESS: infra.temporalAddress(),
      TEMPORAL_NAMESPACE: loadConfig().temporalNamespace,
      DATA_DIR: infra.scratchDir,
      SERVICE_MASTER_KEY: randomBytes(32).toString('base64url'),
      TASK_QUEUE: `bench-${randomUUID()}`,
      OPENAI_COMPATIBLE_BASE_URL: fake.baseUrl,
      OPENAI_COMPATIBLE_API_KEY: 'bench-key',
      LOG_LEVEL: 'info',
      // Far above what a run sends, so the limiter does all its work but never answers 429.
      RATE_LIMIT_POINTS: '1000000000',
      AUTH_FAILURE_LIMIT_POINTS: '1000000000',
      ...options.env,
    });
    const namespace = config.temporalNamespace;
    const masterKey = loadMasterKey(config);
    const logger = discardingLogger();

    const workerDb = createPool(infra.databaseUrl(), options.poolSize);
    undo.push('worker pool', () => workerDb.end());
    const nativeConnection = await NativeConnection.connect({ address: infra.temporalAddress() });
    undo.push('worker connection', () => nativeConnection.close());
    const abortNotices = new AbortNotices({ databaseUrl: infra.databaseUrl(), logger });
    undo.push('abort notices', () => abortNotices.close());
    const worker: Worker = await createWorker({
      connection: nativeConnection,
      namespace,
      taskQueue: config.taskQueue,
      deps: { db: workerDb, logger, config, masterKeys: [masterKey], abortNotices },
      workflowBundle: await workflowBundle(WORKFLOWS_PATH),
    });
    const running = worker.run();
    // A worker that dies mid-run is reported at once; the turns waiting on it then time out.
    running.catch((error: unknown) => log(`the worker stopped: ${(error as Error).message}`));
    undo.push('worker', async () => {
      worker.shutdown();
      await running;
    });

    const apiDb = createPool(infra.databaseUrl(), options.poolSize);
    undo.push('API pool', () => apiDb.end());
    const temporal = lazyTemporalClient(config);
    undo.push('API Temporal connection', () => temporal.close());
    const events = await createEventHub({ databaseUrl: infra.databaseUrl(), db: apiDb, logger });
    undo.push('event hub', () => events.close());
    const handOffs = new HandOffs({ temporal, config, logger });
    undo.push('hand-offs', () => handOffs.drain(5_000));
    const { app } = createApp({ config, db: apiDb, logger, masterKey, masterKeys: [masterKey], temporal, events, handOffs });
    const server = app.listen(0, '127.0.0.1');
    await new Promise<void>((resolve, reject) => {
      server.once('listening', resolve);
      server.once('error', reject);
    });
    undo.push(
      'API server',
      () =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    );
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

    const clientConnection = await Connection.connect({ address: infra.temporalAddress() });
    undo.push('client connection', () => clientConnection.close());
    const client = new Client({ connection: clientConnection, namespace });
    // Session workflows wait SESSION_IDLE_MS for the next send; on a shared server they are ended
    // here rather than left to time out (registered last, so it runs while the worker still polls).
    const sessions: string[] = [];
    undo.push('session workflows', () => terminateAll(client, sessions));

    const setup = new http.Agent({ keepAlive: true, maxSockets: 8 });
    undo.push('setup agent', async () => setup.destroy());

    /** A user with a key, and the calls a benchmark makes as it. */
    const userCalls = async () => {
      const user = await createUser(apiDb, { name: `bench-${randomBytes(4).toString('hex')}` });
      // Agents, sessions, messages and events go with the user (ON DELETE CASCADE).
      undo.push('bench user', () => apiDb.query('DELETE FROM users WHERE id = $1', [user.id]));
      const { key } = await insertKey(apiDb, { userId: user.id, name: 'bench', scopes: scopesFor(user) });
      const headers = jsonHeaders({ authorization: `Bearer ${key}` });
      return { headers, ...agentCalls({ url, headers, setup, sessions }) };
    };
    const first = await userCalls();
    return {
      url,
      fake,
      config,
      temporal: { connection: nativeConnection, client, namespace },
      ...first,
      otherUser: userCalls,
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

/** Ends the session workflows a benchmark started, 20 at a time. */
export async function terminateAll(client: Client, sessionIds: readonly string[]): Promise<void> {
  const batch = 20;
  for (let at = 0; at < sessionIds.length; at += batch) {
    await Promise.all(
      sessionIds.slice(at, at + batch).map((id) =>
        client.workflow
          .getHandle(sessionWorkflowId(id))
          .terminate('benchmark finished')
          // Already ended (idle timeout) or never started: nothing to do.
          .catch(() => undefined),
      ),
    );
  }
}

/**
 * The calls a benchmark makes as one user of a running service: deploy an agent, open a session of it
 * (kept in `sessions`, for the benchmark's cleanup to end), send and wait for the reply.
 */
export function agentCalls(target: { url: string; headers: http.OutgoingHttpHeaders; setup: http.Agent; sessions: string[] }) {
  const { url, headers, setup, sessions } = target;
  return {
    async deployAgent(extra: Record<string, unknown> = {}) {
      const name = `bench-${randomBytes(6).toString('hex')}`;
      const body = JSON.stringify({
        name,
        model: { providerId: 'openai-compatible', modelId: 'fake-model' },
        instructions: 'Be brief.',
        ...extra,
      });
      expectStatus(await timedRequest(setup, `${url}/deploy`, { method: 'POST', headers, body, timeoutMs: 30_000 }), 201, 'POST /deploy');
      return name;
    },
    async newSession(agentName: string) {
      const response = await timedRequest<{ id: string }>(setup, `${url}/agent/${agentName}/session`, {
        method: 'POST',
        headers,
        body: '{}',
        timeoutMs: 30_000,
      });
      const { id } = expectStatus(response, 201, 'POST /agent/<name>/session');
      sessions.push(id);
      return id;
    },
    async send(agent: http.Agent, sessionId: string, text: string) {
      const response = await timedRequest<WaitingSendAnswer>(agent, `${url}/session/${sessionId}`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ parts: [{ type: 'text', text }] }),
        timeoutMs: TURN_TIMEOUT_MS,
      });
      const answer = expectStatus(response, 200, `POST /session/${sessionId}`);
      if (answer.status !== 'completed') throw new Error(`turn ${answer.messageId} ended ${answer.status}: ${answer.error ?? ''}`);
      return response;
    },
  };
}
