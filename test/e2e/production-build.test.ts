// The production build as an operator runs it (and as the Dockerfile does): `npm run build`, then
// `npm run api` and `npm run worker` with NODE_ENV=production, which run the compiled JavaScript in
// dist/ with plain node (no TypeScript loader), the worker on the workflow bundle the build wrote.
// A turn then runs end to end through those two processes against the fake model.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect } from 'vitest';
import { agentTest } from '../helpers/harness/fixtures.ts';
import { startApiProcess, type ApiProcess } from '../helpers/harness/api-process.ts';
import { startWorkerProcess, type WorkerProcess } from '../helpers/harness/worker-process.ts';
import { npmScript } from '../helpers/harness/launch.ts';
import { lastUserText } from '../helpers/fakes/fake-model.ts';
import { Client } from '../../sdk/src/index.ts';
import { startOtlpReceiver } from '../helpers/fakes/otlp-receiver.ts';
import { pluginSetsToBundle } from '../../workers/workflow-code.ts';
import type * as WorkflowCode from '../../workers/workflow-code.ts';

const test = agentTest({}, { inProcessWorker: false });
const started: Array<ApiProcess | WorkerProcess> = [];

beforeAll(async () => {
  // Into the working tree's dist/, where the npm scripts look; the build swaps it in whole.
  await promisify(execFile)('npm', ['run', '--silent', 'build'], { cwd: path.resolve('.') });
});

afterAll(async () => {
  await Promise.all(started.map((process) => process.kill('SIGKILL')));
});

/** A process's argv as the kernel started it. */
const commandLine = (pid: number) => fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);

const jsonLines = (output: string) =>
  output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { msg: string; component?: string; [field: string]: unknown });

test(
  'npm run api and npm run worker in production run the build with plain node, the worker on the prebuilt workflow bundle, and serve a turn',
  { timeout: 120_000 },
  async ({ env }) => {
    const production = {
      ...env.env,
      NODE_ENV: 'production',
      // The other road to a loader (`--import tsx` there would not show in argv): closed, so argv tells all.
      NODE_OPTIONS: '',
      ADMIN_API_KEY: '',
      LOG_LEVEL: 'info',
      HOUSEKEEPING_INTERVAL_MS: '0',
    };
    const [api, worker] = await Promise.all([
      startApiProcess(production, npmScript('api')),
      startWorkerProcess(production, npmScript('worker')),
    ]);
    started.push(api, worker);

    const [apiNode, ...apiArgs] = commandLine(api.pid);
    const [workerNode, ...workerArgs] = commandLine(worker.pid);
    expect([path.basename(apiNode!), path.basename(workerNode!)]).toEqual(['node', 'node']);
    expect(apiArgs).toEqual(['--enable-source-maps', 'dist/api/server.js']);
    expect(workerArgs).toEqual(['--max-semi-space-size=64', '--enable-source-maps', 'dist/workers/main.js']);

    // The worker loaded the build's bundle: it says so, and webpack never ran (it logs each bundle it makes).
    const workerLog = jsonLines(worker.output());
    expect(workerLog.find((line) => line.msg === 'worker polling')).toMatchObject({
      workflowBundle: path.resolve('dist/workers/workflow-bundle.js'),
    });
    expect(workerLog.map((line) => line.msg)).not.toContain('Workflow bundle created');

    const health = await fetch(`${api.url}/auth/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ ok: true });

    env.fake.setHandler((request) => ({ text: `echo: ${lastUserText(request)}` }));
    const client = new Client({ baseUrl: api.url, apiKey: env.user.apiKey });
    const name = `built-${process.pid}`;
    await client.agents.deploy({ name, model: { providerId: 'openai-compatible', modelId: 'fake-model' } });
    const { id: sessionId } = await client.sessions.create(name);
    expect(await client.sessions.send(sessionId, 'hello from the build').text()).toBe('echo: hello from the build');

    await Promise.all([api.kill('SIGTERM'), worker.kill('SIGTERM')]);
    expect([api.process.exitCode, worker.process.exitCode]).toEqual([0, 0]);
  },
);

test(
  'the build carries a bundle for a traced worker too, with the workflow interceptors of the tracing plugin: a traced worker from the build loads it, no webpack at start',
  { timeout: 120_000 },
  async ({ env }) => {
    const built = (await import(pathToFileURL(path.resolve('dist/workers/workflow-code.js')).href)) as typeof WorkflowCode;
    const plainFile = path.resolve('dist/workers/workflow-bundle.js');
    const tracedFile = path.resolve('dist/workers/workflow-bundle.OpenTelemetryPlugin.js');
    expect(built.workflowCode()).toEqual({ workflowBundle: { codePath: plainFile } });
    expect(built.workflowCode(pluginSetsToBundle()[1])).toEqual({ workflowBundle: { codePath: tracedFile } });
    const [plain, traced] = [fs.readFileSync(plainFile, 'utf8'), fs.readFileSync(tracedFile, 'utf8')];
    expect(traced).toContain('OpenTelemetryInboundInterceptor');
    expect(plain).not.toContain('OpenTelemetryInboundInterceptor');
    // Both bundles carry the service's converters: summaries marked readable, failure messages encoded.
    for (const bundle of [plain, traced]) {
      expect(bundle).toContain('agent-service-readable');
      expect(bundle).toContain('encodeCommonAttributes: true');
    }

    const collector = await startOtlpReceiver();
    try {
      const worker = await startWorkerProcess(
        { ...env.env, NODE_ENV: 'production', NODE_OPTIONS: '', LOG_LEVEL: 'info', OTEL_EXPORTER_OTLP_ENDPOINT: collector.url },
        npmScript('worker'),
      );
      started.push(worker);
      const workerLog = jsonLines(worker.output());
      expect(workerLog.find((line) => line.msg === 'worker polling')).toMatchObject({ workflowBundle: tracedFile });
      expect(workerLog.map((line) => line.msg)).not.toContain('Workflow bundle created');
      await worker.kill('SIGTERM');
      expect(worker.process.exitCode).toBe(0);
    } finally {
      await collector.close();
    }
  },
);
