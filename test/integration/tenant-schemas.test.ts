// A tenant's JSON Schema cannot freeze the worker every user shares. A custom tool whose parameters
// hold a pattern that backtracks for ever (`^(a+)+$` against forty a's and a b) and a uniqueItems
// array of 20,000 objects (every pair compared, before) and an anyOf whose branches recurse into the
// same value (exponential: checked in a thread with a time budget now) are checked at once: each call gets a tool
// error the model reads, and another user's turn, sent at the same moment, completes on the same
// worker (a process of its own, so a frozen one fails this test by its timeout, not the test run).
// A pattern the linear-time engine cannot run is refused at deploy, naming where it is.
import { afterAll, expect, onTestFailed } from 'vitest';
import { agentTest } from '../helpers/harness/fixtures.ts';
import { startWorkerProcess, type WorkerProcess } from '../helpers/harness/worker-process.ts';
import { createTestUser, type TestUser } from '../helpers/harness/users.ts';
import { call } from '../helpers/client/request.ts';
import { sessionAs } from '../helpers/harness/sessions-as.ts';
import type { AgentEnv } from '../helpers/harness/agent-env.ts';
import type { FakeRequest, FakeScript } from '../helpers/fakes/fake-model.ts';
import { FAN_OUT_DEFS, nestedArrays } from '../helpers/schemas/fan-out.ts';

const test = agentTest({}, { inProcessWorker: false });
let worker: WorkerProcess | undefined;
afterAll(async () => {
  await worker?.kill('SIGKILL');
});

const CHECK = {
  id: 'check_order',
  description: 'Checks an order',
  parameters: {
    type: 'object',
    properties: {
      code: { type: 'string', pattern: '^(a+)+$' },
      lines: { type: 'array', uniqueItems: true, items: { type: 'object' } },
      tree: { $ref: '#/$defs/node' },
    },
    $defs: FAN_OUT_DEFS,
  },
};

const BACKTRACKS = { code: `${'a'.repeat(40)}b` };
// Items 0 and 1 are the same: ajv's pairwise loop reaches that pair last.
/** About 2^40 branch checks: hours on an event loop. */
const FANS_OUT = { tree: nestedArrays(40) };
const MANY_LINES = { lines: [{ sku: 0 }, ...Array.from({ length: 20_000 }, (_, i) => ({ sku: i }))] };

/** What the fake model says: a tool call for each tenant's message, text once a tool result is in. */
function script(request: FakeRequest): FakeScript {
  const messages = request.body.messages as { role: string; content: unknown }[];
  if (messages.some((message) => message.role === 'tool')) return { text: 'The check failed.' };
  const said = JSON.stringify(messages.at(-1)?.content);
  if (said.includes('pattern')) return { toolCalls: [{ name: 'check_order', arguments: BACKTRACKS }] };
  if (said.includes('unique')) return { toolCalls: [{ name: 'check_order', arguments: MANY_LINES }] };
  if (said.includes('fan')) return { toolCalls: [{ name: 'check_order', arguments: FANS_OUT }] };
  return { text: 'Served as usual.' };
}

const send = (env: AgentEnv, who: TestUser, sessionId: string, text: string) =>
  call<{ status: string; reply: string }>(`${env.api.url}/session/${sessionId}`, {
    headers: who.auth,
    json: { parts: [{ type: 'text', text }] },
  });

test(
  'a backtracking pattern, a huge uniqueItems array and an exponential anyOf get tool errors; another user is served meanwhile',
  // The worker process starts inside the test (it bundles the workflows): on a machine a full CI run holds,
  // that alone took most of two minutes twice. A frozen worker never answers, so it still fails by this timeout.
  { timeout: 300_000 },
  async ({ env }) => {
    worker = await startWorkerProcess(env.env);
    const started = worker;
    // A worker that stops answering fails this test by its timeout, one that ends fails it at once: what it
    // logged says why. (It once ended when a check's thread, ended for its time, reached its heap limit while ending.)
    onTestFailed(() => console.warn(`[tenant-schemas] the worker process's output:\n${started.output().slice(-20_000)}`));
    const ended = new Promise<never>((_, reject) =>
      started.process.once('exit', (code, signal) => reject(new Error(`the worker process ended (${signal ?? `exit code ${code}`})`))),
    );
    env.fake.setHandler(script);
    const tenant = env.user;
    const bystander = await createTestUser(env.api.db);
    const [patternSession, uniqueSession, fanSession] = [
      await sessionAs(env, tenant, { customTools: [CHECK] }),
      await sessionAs(env, tenant, { customTools: [CHECK] }),
      await sessionAs(env, tenant, { customTools: [CHECK] }),
    ];
    const bystanderSession = await sessionAs(env, bystander, {});

    const [pattern, unique, fan, served] = await Promise.race([
      Promise.all([
        send(env, tenant, patternSession, 'check the pattern'),
        send(env, tenant, uniqueSession, 'check unique lines'),
        send(env, tenant, fanSession, 'check the fanned-out tree'),
        send(env, bystander, bystanderSession, 'hello'),
      ]),
      ended,
    ]);
    expect(served.body).toMatchObject({ status: 'completed', reply: 'Served as usual.' });
    for (const [sessionId, reply, error] of [
      [patternSession, pattern, /\/code must match pattern "\^\(a\+\)\+\$"/],
      [uniqueSession, unique, /\/lines must NOT have duplicate items \(items ## 1 and 0 are identical\)/],
      [
        fanSession,
        fan,
        /^The input could not be checked: Checking it against the schema took (longer than 2000 ms|more than 128 MiB): the schema is too costly/,
      ],
    ] as const) {
      expect(reply.body).toMatchObject({ status: 'completed', reply: 'The check failed.' });
      const events = await env.events(sessionId);
      expect(events.find((event) => event.type === 'tool.result')).toMatchObject({ isError: true, output: expect.stringMatching(error) });
    }
  },
);

test('a pattern the linear-time engine cannot run is refused at deploy, with its place', async ({ env }) => {
  for (const pattern of ['^(?=a)a', '(a)\\1']) {
    const tool = { ...CHECK, parameters: { type: 'object', properties: { code: { type: 'string', pattern } } } };
    const response = await call<{ errors: { path: string; message: string }[] }>(`${env.api.url}/deploy`, {
      headers: env.user.auth,
      json: {
        name: `agent-${Math.random().toString(36).slice(2, 10)}`,
        model: { providerId: 'openai-compatible', modelId: 'm' },
        customTools: [tool],
      },
    });
    expect(response.status, pattern).toBe(400);
    expect(response.body.errors).toContainEqual({
      path: '/customTools/0/parameters',
      message: expect.stringMatching(/^has a pattern the service cannot run: .*lookahead, lookbehind and backreferences are not supported/),
    });
  }
});
