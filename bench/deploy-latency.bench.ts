// POST /deploy of a ~200 KB bundle through the real API (auth, rate limiter, body parsing, secret
// lookup, validation, the revision written to PostgreSQL, request log) beside validateBundle() of
// the same text alone, in the same run. The ratio says what the deploy adds to validation.
// Every deploy but the first adds a revision to one agent, the common case of redeploying.
import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp } from '../api/app.ts';
import { createEventHub } from '../api/event-hub.ts';
import { validateBundle } from '../lib/bundle/index.ts';
import { loadConfig } from '../lib/config.ts';
import { parseMasterKey } from '../lib/master-key.ts';
import { SCOPES } from '../lib/scopes.ts';
import { lazyTemporalClient } from '../lib/temporal.ts';
import { insertKey } from '../store/api-keys.ts';
import { createPool } from '../store/db.ts';
import { createUser } from '../store/users.ts';
import type { Benchmark } from './benchmark.ts';
import { generateBundle } from './deploy-bundle.ts';
import { timedRequest } from './http-json.ts';
import { keepAliveAgent, summarize } from './measure.ts';
import { discardingLogger } from './temporal-runtime.ts';

const TARGET_BYTES = 200 * 1024;
const DEPLOYS = 200;
const WARMUP = 20;
/** The two targets take turns in blocks, so a slow spell of the machine hits both alike. */
const BLOCK = 20;

const ratio = (a: number, b: number) => Math.round((a / b) * 100) / 100;

const deployLatency: Benchmark = {
  name: 'deploy-latency',
  description: `POST /deploy of a ~${TARGET_BYTES / 1024} KiB bundle beside validateBundle() alone, ${DEPLOYS} sequential runs each`,
  // Temporal too, so that whatever deploy reconciles there (cron schedules) is measured, not failed.
  needs: ['postgres', 'temporal'],
  async run({ infra, log }) {
    const config = loadConfig({
      NODE_ENV: 'development',
      DATABASE_URL: infra.databaseUrl(),
      TEMPORAL_ADDRESS: infra.temporalAddress(),
      TEMPORAL_NAMESPACE: loadConfig().temporalNamespace,
      DATA_DIR: infra.scratchDir,
      LOG_LEVEL: 'info',
      RATE_LIMIT_POINTS: '1000000000',
      AUTH_FAILURE_LIMIT_POINTS: '1000000000',
    });
    const db = createPool(infra.databaseUrl(), 10);
    const temporal = lazyTemporalClient(config);
    const logger = discardingLogger();
    const events = await createEventHub({ databaseUrl: infra.databaseUrl(), logger });
    const masterKey = parseMasterKey(randomBytes(32).toString('base64url'));
    const server: Server = createApp({ config, db, logger, masterKey, temporal, events }).app.listen(0, '127.0.0.1');
    const agent = keepAliveAgent();
    const name = `deploy-${randomBytes(4).toString('hex')}`;
    let userId: string | undefined;
    let cleanupAgent: (() => Promise<unknown>) | undefined;

    try {
      await new Promise<void>((resolve, reject) => {
        server.once('listening', resolve);
        server.once('error', reject);
      });
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      userId = (await createUser(db, { name: `bench-${randomBytes(4).toString('hex')}` })).id;
      const { key } = await insertKey(db, { userId, name: 'bench', scopes: SCOPES });
      const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/jsonc' };
      // The agent's own DELETE, so anything it keeps outside PostgreSQL (schedules) goes too.
      cleanupAgent = () => fetch(`${url}/agent/${name}`, { method: 'DELETE', headers: { authorization: headers.authorization } });
      const bundle = generateBundle(name, TARGET_BYTES);
      log(`bundle: ${bundle.bytes} bytes, ${bundle.workspaceFiles} workspace files, ${bundle.customTools} custom tools`);

      // The route asks PostgreSQL for the user's secret keys; alone, the validation is given the same (none).
      const existingSecretKeys = new Set<string>();
      const checked = validateBundle(bundle.text, { existingSecretKeys });
      if (!checked.ok) throw new Error(`the generated bundle is not valid: ${JSON.stringify(checked.errors).slice(0, 1000)}`);

      const deployUrl = `${url}/deploy`;
      let revision = 0;
      const deploy = async () => {
        const response = await timedRequest<{ ok?: boolean; revision?: number }>(agent, deployUrl, {
          method: 'POST',
          headers,
          body: bundle.text,
          timeoutMs: 30_000,
        });
        if ((response.status !== 200 && response.status !== 201) || response.body.ok !== true) {
          throw new Error(`POST /deploy answered ${response.status}: ${JSON.stringify(response.body).slice(0, 500)}`);
        }
        revision = response.body.revision ?? revision;
        return response.ms;
      };
      const validate = async () => {
        const started = process.hrtime.bigint();
        const result = validateBundle(bundle.text, { existingSecretKeys });
        const ms = Number(process.hrtime.bigint() - started) / 1e6;
        if (!result.ok) throw new Error('validateBundle rejected the bundle it accepted before');
        return ms;
      };

      const alternate = async (count: number) => {
        const samples: [number[], number[]] = [[], []];
        for (let done = 0; done < count; done += BLOCK) {
          const size = Math.min(BLOCK, count - done);
          for (let i = 0; i < size; i++) samples[0].push(await deploy());
          for (let i = 0; i < size; i++) samples[1].push(await validate());
        }
        return samples;
      };
      log(`warming up (${WARMUP} each)`);
      await alternate(WARMUP);
      log(`measuring (${DEPLOYS} each)`);
      const [deploySamples, validateSamples] = await alternate(DEPLOYS);
      const deployed = summarize(deploySamples);
      const validated = summarize(validateSamples);
      return {
        bundle: {
          bytes: bundle.bytes,
          workspaceFiles: bundle.workspaceFiles,
          customTools: bundle.customTools,
          triggers: bundle.triggers,
          warnings: checked.warnings.length,
        },
        deploys: DEPLOYS,
        warmup: WARMUP,
        lastRevision: revision,
        method: `sequential, one keep-alive socket, alternating blocks of ${BLOCK}; every deploy is a new revision of one agent`,
        deploy: { route: 'POST /deploy (application/jsonc)', ...deployed },
        validateOnly: { call: 'validateBundle(text, { existingSecretKeys })', ...validated },
        ratioP50: ratio(deployed.p50Ms, validated.p50Ms),
        ratioP99: ratio(deployed.p99Ms, validated.p99Ms),
        ratioMean: ratio(deployed.meanMs, validated.meanMs),
      };
    } finally {
      agent.destroy();
      await cleanupAgent?.().catch((error: unknown) => log(`DELETE /agent failed: ${(error as Error).message}`));
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await events.close();
      // Agents, revisions and keys go with the user (ON DELETE CASCADE).
      if (userId) {
        await db
          .query('DELETE FROM users WHERE id = $1', [userId])
          .catch((error: unknown) => log(`cleanup failed: ${(error as Error).message}`));
      }
      await temporal.connection.close().catch(() => undefined);
      await db.end();
    }
  },
};

export default deployLatency;
