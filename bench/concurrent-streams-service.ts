// The service as bench/concurrent-streams.bench.ts measures it: the API (api/server.ts) and the
// worker (workers/main.ts) as two child processes, as `npm run api` and `npm run worker` run them in
// production (NODE_ENV=production, pools of 10, logging at info to a file), on the bench's
// PostgreSQL and Temporal with a task queue of their own, reaching the fake model in this process
// through the `openai-compatible` provider. The user and key are made here through the store, as in
// bench/agent-stack.ts. close() stops both children and leaves a shared PostgreSQL or Temporal as it
// found them, whatever failed before.
import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { freePort } from '../dev/ports.ts';
import { loadConfig } from '../lib/config.ts';
import { scopesFor } from '../contract/scopes.ts';
import { agentCalls } from './agent-stack.ts';
import { insertKey } from '../store/api-keys.ts';
import { createPool } from '../store/db.ts';
import { createUser, findFirstAdmin } from '../store/users.ts';
import { WORKER_NODE_FLAGS } from '../workers/node-flags.ts';
import { terminateAll } from './agent-stack.ts';
import { forkBenchChild, logWarnings, type BenchChild } from './concurrent-streams-children.ts';
import type { StreamTarget } from './concurrent-streams-round.ts';
import { expectStatus, jsonHeaders, timedRequest } from './http-json.ts';
import type { Infra } from './infra.ts';
import { cleanups } from './cleanups.ts';

export interface ServiceTarget extends StreamTarget {
  /** The API's base URL, for requests the StreamTarget methods do not make. */
  url: string;
  deltaFlushMs: number;
  /** Where a child (`api`, `worker`) writes its log. */
  logFile(name: 'api' | 'worker'): string;
  /** Warnings and errors the API and the worker have logged so far. */
  logWarnings(): Record<string, { count: number; first?: string }>;
  close(): Promise<void>;
}

/** Sessions are opened this many at a time: setting up is not what is measured. */
const SETUP_CONCURRENCY = 10;

export interface ServiceOptions {
  /** Settings over the bench's own (a limit left at its production default, say). */
  env?: Record<string, string>;
  /** Names the children's data and log directory under the scratch directory, so two benches' logs stay apart. */
  label?: string;
}

export async function startService(
  infra: Infra,
  fakeBaseUrl: string,
  log: (line: string) => void,
  options: ServiceOptions = {},
): Promise<ServiceTarget> {
  const undo = cleanups(log);
  const close = () => undo.run();

  try {
    const db = createPool(infra.databaseUrl(), 2);
    undo.push('bench pool', () => db.end());
    // api/server.ts creates the first admin (and its key) on a database without one; that user goes again at the end.
    const hadAdmin = (await findFirstAdmin(db)) !== undefined;
    if (!hadAdmin) {
      undo.push('admin made by the API', async () => {
        const admin = await findFirstAdmin(db);
        if (admin) await db.query('DELETE FROM users WHERE id = $1', [admin.id]);
      });
    }

    const user = await createUser(db, { name: `bench-${randomBytes(4).toString('hex')}` });
    // Agents, sessions, messages and events go with the user (ON DELETE CASCADE), once the children are stopped.
    undo.push('bench user', () => db.query('DELETE FROM users WHERE id = $1', [user.id]));

    const env: NodeJS.ProcessEnv = {
      ...process.env,
      NODE_ENV: 'production',
      DATABASE_URL: infra.databaseUrl(),
      TEMPORAL_ADDRESS: infra.temporalAddress(),
      TEMPORAL_NAMESPACE: loadConfig().temporalNamespace,
      TASK_QUEUE: `bench-${randomUUID()}`,
      SERVICE_MASTER_KEY: randomBytes(32).toString('base64url'),
      // An operator's admin key must not be written into the bench's database.
      ADMIN_API_KEY: '',
      DATA_DIR: path.join(infra.scratchDir, options.label ?? 'concurrent-streams'),
      HOST: '127.0.0.1',
      PORT: String(await freePort()),
      OPENAI_COMPATIBLE_BASE_URL: fakeBaseUrl,
      OPENAI_COMPATIBLE_API_KEY: 'bench-key',
      LOG_LEVEL: 'info',
      // Every stream is the bench user's, over one key: production's 50 streams per key would refuse
      // the 200 readers, and the rate limiter 600 requests a minute. It still does all its work.
      SSE_STREAMS_PER_KEY: '100000',
      RATE_LIMIT_POINTS: '1000000000',
      AUTH_FAILURE_LIMIT_POINTS: '1000000000',
      ...options.env,
    };
    const logDir = options.label ? path.join(infra.scratchDir, options.label) : infra.scratchDir;
    fs.mkdirSync(logDir, { recursive: true });
    const deltaFlushMs = loadConfig(env).limits.deltaFlushMs;

    const startChild = (name: string, file: string): BenchChild => {
      // The worker as `npm run worker` runs it.
      const nodeFlags = file === 'workers/main.ts' ? WORKER_NODE_FLAGS : [];
      const child = forkBenchChild({ name, file, env, nodeFlags, logDir, readyTimeoutMs: 120_000 });
      undo.push(name, () => child.stop());
      return child;
    };
    const worker = startChild('worker', 'workers/main.ts');
    const api = startChild('api', 'api/server.ts');
    const [{ url: apiUrl }] = await Promise.all([api.ready, worker.ready]);
    const url = String(apiUrl);

    const { key } = await insertKey(db, { userId: user.id, name: 'bench', scopes: scopesFor(user) });
    const headers = jsonHeaders({ authorization: `Bearer ${key}` });

    const connection = await Connection.connect({ address: infra.temporalAddress() });
    undo.push('Temporal connection', () => connection.close());
    const client = new Client({ connection, namespace: env.TEMPORAL_NAMESPACE });
    // Session workflows wait SESSION_IDLE_MS for the next send; they are ended here, while the worker still polls.
    const sessions: string[] = [];
    undo.push('session workflows', () => terminateAll(client, sessions));

    const setup = new http.Agent({ keepAlive: true, maxSockets: SETUP_CONCURRENCY });
    undo.push('setup agent', async () => setup.destroy());
    const calls = agentCalls({ url, headers, setup, sessions });
    const agentName = await calls.deployAgent();
    const newSession = () => calls.newSession(agentName);

    return {
      url,
      deltaFlushMs,
      headers,
      // The Temporal dev server and PostgreSQL (its backends included) when started for the run.
      pids: { api: api.pid, worker: worker.pid, ...infra.pids() },
      logFile: (name) => path.join(logDir, `concurrent-streams-${name}.log`),
      logWarnings: () => ({ api: logWarnings(logDir, 'api'), worker: logWarnings(logDir, 'worker') }),
      async open(count) {
        const ids: string[] = [];
        for (let at = 0; at < count; at += SETUP_CONCURRENCY) {
          ids.push(...(await Promise.all(Array.from({ length: Math.min(SETUP_CONCURRENCY, count - at) }, newSession))));
        }
        return ids;
      },
      async eventsUrl(id) {
        const response = await timedRequest<{ lastSeq: number }>(setup, `${url}/session/${id}`, { headers, timeoutMs: 30_000 });
        const { lastSeq } = expectStatus(response, 200, 'GET /session/<id>');
        return `${url}/session/${id}/events?after=${lastSeq}`;
      },
      async send(agent, id, text) {
        const response = await timedRequest<{ messageId: string }>(agent, `${url}/session/${id}?async=1`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ parts: [{ type: 'text', text }] }),
          timeoutMs: 60_000,
        });
        return expectStatus(response, 202, 'POST /session/<id>?async=1').messageId;
      },
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
