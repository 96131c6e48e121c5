// POST /deploy of a ~200 KB bundle through the real API (auth, rate limiter, body parsing, secret
// lookup, validation, the revision written to PostgreSQL, request log) beside validateBundle() of
// the same text alone, in the same run. The ratio says what the deploy adds to validation.
// Every deploy but the first adds a revision to one agent, the common case of redeploying.
import { randomBytes } from 'node:crypto';
import { validateBundle } from '../lib/bundle/index.ts';
import { startBenchApi } from './bench-api.ts';
import type { Benchmark } from './benchmark.ts';
import { generateBundle } from './deploy-bundle.ts';
import { timedRequest } from './http-json.ts';
import { keepAliveAgent, summarize } from './measure.ts';

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
    const api = await startBenchApi(infra, { temporal: true });
    const { url } = api;
    const agent = keepAliveAgent();
    const name = `deploy-${randomBytes(4).toString('hex')}`;
    const headers = { ...api.auth, 'content-type': 'application/jsonc' };

    try {
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
      // The agent's own DELETE, so anything it keeps outside PostgreSQL (schedules) goes too.
      await fetch(`${url}/agent/${name}`, { method: 'DELETE', headers: api.auth }).catch((error: unknown) =>
        log(`DELETE /agent failed: ${(error as Error).message}`),
      );
      // Agents and revisions go with the bench user.
      await api.close();
    }
  },
};

export default deployLatency;
