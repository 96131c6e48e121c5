// A tenant who points their provider's base URL (a secret) at a server of their own cannot grow a
// worker's memory: a line without end, a gzip bomb and a huge error page each end their turn at once
// with an error that says what happened, the worker (a process of its own, measured by its peak
// resident size) stays small, and another user's turn on the same worker completes meanwhile.
import fs from 'node:fs';
import { afterAll, expect } from 'vitest';
import { agentTest } from '../helpers/harness/fixtures.ts';
import { startWorkerProcess, type WorkerProcess } from '../helpers/harness/worker-process.ts';
import { createTestUser, type TestUser } from '../helpers/harness/users.ts';
import { call } from '../helpers/client/request.ts';
import { sessionAs } from '../helpers/harness/sessions-as.ts';
import { startHostileProvider, type HostileAnswer, type HostileProvider } from '../helpers/fakes/hostile-provider.ts';
import type { AgentEnv } from '../helpers/harness/agent-env.ts';

/**
 * What the worker process may reach at its peak. With answers limited it peaks at about 450 MiB
 * (from source, its workflow bundle compiled); before, these three answers took it past 1.2 GiB.
 */
const PEAK_RSS_BOUND_MIB = 640;

const test = agentTest({ OUTBOUND_ALLOW_CIDRS: '127.0.0.1/32' }, { inProcessWorker: false });
let worker: WorkerProcess | undefined;
let hostile: HostileProvider | undefined;
afterAll(async () => {
  await worker?.kill('SIGKILL');
  await hostile?.close();
});

interface TurnReply {
  status: string;
  reply: string;
  error?: string;
}

const send = (env: AgentEnv, who: TestUser, sessionId: string, text: string) =>
  call<TurnReply>(`${env.api.url}/session/${sessionId}`, { headers: who.auth, json: { parts: [{ type: 'text', text }] } });

/** The highest resident set size the process has had (VmHWM), in MiB. */
function peakRssMib(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = Number(/^VmHWM:\s+(\d+) kB$/m.exec(status)?.[1]);
  return kib / 1024;
}

const EXPECTED: Record<HostileAnswer, RegExp> = {
  'endless-line': /The model provider's stream sent a line longer than \d+ bytes .*MODEL_STEP_MAX_OUTPUT_BYTES/,
  // Whichever comes first: the line the bomb holds, or how far its bytes expand.
  'gzip-bomb': /The model provider's stream (sent a line longer than \d+ bytes|expands more than \d+ times when decompressed)/,
  'huge-error': /The model provider's error answer went past \d+ bytes/,
};

test(
  'a line without end, a gzip bomb and a 200 MiB error page: each turn fails at once, the worker stays small, another user is served',
  {
    timeout: 180_000,
  },
  async ({ env }) => {
    worker = await startWorkerProcess(env.env);
    hostile = await startHostileProvider();
    // Secrets are per user: one tenant per answer.
    const sessions = {} as Record<HostileAnswer, string>;
    const tenants = {} as Record<HostileAnswer, TestUser>;
    for (const answer of Object.keys(EXPECTED) as HostileAnswer[]) {
      const who = await createTestUser(env.api.db);
      tenants[answer] = who;
      for (const [key, value] of [
        ['OPENAI_COMPATIBLE_BASE_URL', hostile.baseUrl(answer)],
        ['OPENAI_COMPATIBLE_API_KEY', 'their-own-key'],
      ]) {
        expect((await call(`${env.api.url}/secret/${key}`, { method: 'PUT', headers: who.auth, json: { value } })).status).toBe(201);
      }
      sessions[answer] = await sessionAs(env, who, { secretGrants: ['OPENAI_COMPATIBLE_BASE_URL', 'OPENAI_COMPATIBLE_API_KEY'] });
    }
    const bystander = await createTestUser(env.api.db);
    const bystanderSession = await sessionAs(env, bystander, {});
    env.fake.enqueue({ text: 'Served as usual.' });

    const [attacks, served] = await Promise.all([
      Promise.all(
        (Object.keys(EXPECTED) as HostileAnswer[]).map(
          async (answer) => [answer, await send(env, tenants[answer], sessions[answer], 'hi')] as const,
        ),
      ),
      send(env, bystander, bystanderSession, 'hello'),
    ]);

    expect(served.body).toMatchObject({ status: 'completed', reply: 'Served as usual.' });
    for (const [answer, reply] of attacks) {
      expect(reply.body.status, answer).toBe('failed');
      expect(reply.body.error, answer).toMatch(EXPECTED[answer]);
      // Not retried: another attempt would read the same answer.
      expect(hostile.requests[answer], answer).toBe(1);
    }
    expect(peakRssMib(worker.pid)).toBeLessThan(PEAK_RSS_BOUND_MIB);
  },
);
