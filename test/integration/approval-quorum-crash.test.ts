// A worker SIGKILLed between the vote that decides an approval a team answers and the turn's resume: the
// decision is PostgreSQL's (taken with no worker needed) and handed to the approval's workflow by signal,
// so the turn resumes on a new worker with the one decision, and the approved tool runs once.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, expect } from 'vitest';
import { agentTest } from '../helpers/harness/fixtures.ts';
import { startWorkerProcess, workersKilledAfterAll } from '../helpers/harness/worker-process.ts';
import { call } from '../helpers/client/request.ts';
import { closeServer } from '../helpers/fakes/recorded.ts';
import type { SessionEvent } from '../../contract/events.ts';

const test = agentTest({ OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8' }, { inProcessWorker: false });
const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  await Promise.all(closers.map((close) => close()));
});
// Registered after the closers: vitest runs a file's afterAll hooks last to first, so the workers go first.
const workers = workersKilledAfterAll();

interface TeamApproval {
  id: string;
  approvers: Array<{ name: string; links: { page: string } }>;
}

test('the deciding vote, then the worker killed: one decision, one resume, the tool run once', { timeout: 180_000 }, async ({ env }) => {
  const paid: string[] = [];
  const receiver: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      paid.push(body);
      res.writeHead(200, { 'content-type': 'text/plain' }).end('paid');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  closers.push(() => closeServer(receiver));
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/pay`;
  for (const name of ['crash-alice', 'crash-bob']) {
    expect((await call(`${env.api.url}/approver/${name}`, { method: 'PUT', headers: env.user.auth, json: {} })).status).toBeLessThan(300);
  }

  workers.push(await startWorkerProcess(env.env));
  const sessionId = await env.newSession({
    mcps: ['http'],
    toolPolicies: { http: { http_request: { ask: { approvers: ['crash-alice', 'crash-bob'], quorum: 2 } } } },
  });
  env.fake.enqueue(
    { toolCalls: [{ id: 'c1', name: 'http_request', arguments: { url, method: 'POST', body: 'invoice 77' } }] },
    { text: 'Paid.' },
  );
  const sent = await call(`${env.api.url}/session/${sessionId}?async=1`, {
    headers: env.user.auth,
    json: { parts: [{ type: 'text', text: 'pay' }] },
  });
  expect(sent.status).toBe(202);
  const asked = await env.waitForEvents(sessionId, (events) => events.some((event) => event.type === 'approval.requested'), 30_000);
  const approvalId = (asked.find((event) => event.type === 'approval.requested') as Extract<SessionEvent, { type: 'approval.requested' }>)
    .approvalId;
  const approval = (await call<TeamApproval>(`${env.api.url}/approval/${approvalId}`, { headers: env.user.auth })).body;
  const vote = (name: string) =>
    call<{ status: string }>(approval.approvers.find((seat) => seat.name === name)!.links.page, {
      headers: { accept: 'application/json' },
      json: { choice: 'approve' },
    });

  expect((await vote('crash-alice')).status).toBe(202);
  const decided = await vote('crash-bob');
  expect(decided.status).toBe(200);
  await workers.at(-1)!.kill('SIGKILL');
  workers.push(await startWorkerProcess(env.env));

  const events = await env.waitForEvents(
    sessionId,
    (all) => all.some((event) => event.type === 'turn.completed' || event.type === 'turn.failed'),
    90_000,
  );
  expect(events.filter((event) => event.type === 'turn.completed')).toHaveLength(1);
  expect(events.filter((event) => event.type === 'approval.answered')).toEqual([
    expect.objectContaining({ approvalId, choice: 'approve', approver: 'crash-bob' }),
  ]);
  expect(paid).toEqual(['invoice 77']);
  const after = (await call<{ status: string; decidedBy: string }>(`${env.api.url}/approval/${approvalId}`, { headers: env.user.auth }))
    .body;
  expect(after).toMatchObject({ status: 'answered', decidedBy: 'crash-bob' });
});
