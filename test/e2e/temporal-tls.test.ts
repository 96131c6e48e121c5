// The API and the worker reach Temporal over mutual TLS when configured by environment only
// (TEMPORAL_TLS_CA, TEMPORAL_TLS_CERT, TEMPORAL_TLS_KEY, TEMPORAL_TLS_SERVER_NAME): the dev server
// cannot speak TLS itself, so a TLS-terminating proxy that demands a client certificate stands in
// front of it, as a load balancer would before a cluster. Without a client certificate, or trusting
// another CA, nothing gets through, and the processes say which setting is wrong.
import { afterAll, beforeAll, expect, inject } from 'vitest';
import { agentTest } from '../helpers/harness/fixtures.ts';
import { startApiProcess, type ApiProcess } from '../helpers/harness/api-process.ts';
import { startWorkerProcess, type WorkerProcess } from '../helpers/harness/worker-process.ts';
import { makeTestCertificates, type TestCertificates } from '../helpers/harness/tls-certs.ts';
import { startTlsProxy, type TlsProxy } from '../helpers/harness/tls-proxy.ts';
import { call } from '../helpers/client/request.ts';
import { runScriptToExit } from '../helpers/harness/script-run.ts';

const test = agentTest({}, { inProcessWorker: false });

let certs: TestCertificates;
let other: TestCertificates;
let proxy: TlsProxy;
const processes: Array<ApiProcess | WorkerProcess> = [];
beforeAll(async () => {
  certs = makeTestCertificates();
  other = makeTestCertificates();
  proxy = await startTlsProxy({ target: inject('temporalAddress'), cert: certs.serverCert, key: certs.serverKey, clientCa: certs.caCert });
});
afterAll(async () => {
  await Promise.all(processes.map((process) => process.kill('SIGKILL')));
  await proxy?.close();
});

const mutualTls = () => ({
  TEMPORAL_ADDRESS: proxy.address,
  TEMPORAL_TLS_CA: certs.caCert,
  TEMPORAL_TLS_CERT: certs.clientCert,
  TEMPORAL_TLS_KEY: certs.clientKey,
  TEMPORAL_TLS_SERVER_NAME: certs.serverName,
});

test('an API and a worker configured for mutual TLS run a turn through the TLS front', { timeout: 120_000 }, async ({ env }) => {
  const worker = await startWorkerProcess({ ...env.env, ...mutualTls() });
  processes.push(worker);
  const api = await startApiProcess({ ...env.env, ...mutualTls() });
  processes.push(api);

  const ready = await call<{ ok: boolean; checks: unknown }>(`${api.url}/auth/health/ready`);
  expect(ready.body).toMatchObject({ ok: true, checks: { temporal: { ok: true }, workers: { ok: true } } });

  const { name } = await env.deploy();
  const session = await call<{ id: string }>(`${api.url}/agent/${name}/session`, { headers: env.user.auth, json: {} });
  env.fake.enqueue({ text: 'Over TLS.' });
  const reply = await call<{ reply: string; status: string }>(`${api.url}/session/${session.body.id}`, {
    headers: env.user.auth,
    json: { parts: [{ type: 'text', text: 'hello' }] },
  });
  expect(reply.body).toMatchObject({ status: 'completed', reply: 'Over TLS.' });
});

test(
  'without a client certificate, or trusting another CA, Temporal is not reached, and readiness says so',
  { timeout: 60_000 },
  async ({ env }) => {
    const refusedBefore = proxy.refused;
    const noClientCert = await startApiProcess({ ...env.env, ...mutualTls(), TEMPORAL_TLS_CERT: '', TEMPORAL_TLS_KEY: '' });
    processes.push(noClientCert);
    const ready = await call<{ ok: boolean; checks: { temporal: { ok: boolean; error?: string } } }>(
      `${noClientCert.url}/auth/health/ready`,
    );
    expect(ready.status).toBe(503);
    expect(ready.body.checks.temporal).toEqual({ ok: false, error: expect.stringMatching(/^Temporal (is not reachable|did not answer)/) });
    expect(proxy.refused).toBeGreaterThan(refusedBefore);

    const wrongCa = await startApiProcess({ ...env.env, ...mutualTls(), TEMPORAL_TLS_CA: other.caCert });
    processes.push(wrongCa);
    expect((await call(`${wrongCa.url}/auth/health/ready`)).status).toBe(503);
  },
);

test('a TLS setting that cannot work stops the process at start, naming the variable', async ({ env }) => {
  const { code, output } = await runScriptToExit('workers/main.ts', { ...env.env, ...mutualTls(), TEMPORAL_TLS_KEY: '' });
  expect(code).toBe(1);
  expect(output).toContain('TEMPORAL_TLS_CERT and TEMPORAL_TLS_KEY go together');
});
