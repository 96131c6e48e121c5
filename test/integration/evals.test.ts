// Evals: a revision run against cases, each case a session of it, graded. A case from a recorded session
// replays it: a service tool call matching a recorded one gets the recorded result and does not run (the
// receiver of an `http` call sees no second request); one that matches nothing is reported and refused.
// Written cases are graded by every kind of check, each verdict explaining itself. A run can be cancelled.
import { describe, expect, onTestFinished, vi } from 'vitest';
import { agentTest } from '../helpers/harness/fixtures.ts';
import { evalEnded, startEval } from '../helpers/harness/evals.ts';
import type { AgentEnv } from '../helpers/harness/agent-env.ts';
import { call } from '../helpers/client/request.ts';
import { startWebhookReceiver } from '../helpers/fakes/webhook-receiver.ts';
import type { EvalRunView } from '../../contract/operations/evals.ts';
import { createRun } from '../../store/evals.ts';
import { startUnstartedRuns } from '../../api/evals/start-late.ts';
import { createLogger } from '../../lib/logger.ts';

const test = agentTest({ OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8' });
const FAKE_MODEL = { providerId: 'openai-compatible', modelId: 'fake-model' };

const post = <T>(env: AgentEnv, path: string, json?: unknown) =>
  call<T>(`${env.api.url}${path}`, { method: 'POST', headers: env.user.auth, ...(json === undefined ? {} : { json }) });

async function deploy(env: AgentEnv, name: string, bundle: Record<string, unknown>, stage = false): Promise<number> {
  const deployed = await call<{ revision: number }>(`${env.api.url}/deploy${stage ? '?stage=1' : ''}`, {
    headers: env.user.auth,
    json: { name, model: FAKE_MODEL, ...bundle },
  });
  expect(deployed.status, deployed.text).toBeLessThan(300);
  return deployed.body.revision;
}

const newName = () => `agent-${crypto.randomUUID().slice(0, 8)}`;

/** A run recorded as POST /agent/<name>/evals records it, whose workflow is not started: as if the engine had not answered. */
async function recordedRunOnly(
  env: AgentEnv,
  name: string,
  cases: Array<{ input: string; expect?: { contains: string } }>,
): Promise<string> {
  const agent = await call<{ id: string; revision: number }>(`${env.api.url}/agent/${name}`, { headers: env.user.auth });
  const id = `evl_${crypto.randomUUID().replace(/-/g, '').slice(0, 26)}`;
  await createRun(env.api.db, {
    id,
    userId: env.user.userId,
    agentId: agent.body.id,
    revision: agent.body.revision,
    replayTools: 'live',
    unmatched: 'error',
    concurrency: 1,
    graders: [],
    set: null,
    keyId: null,
    maxRunning: 5,
    cases,
  });
  return id;
}

/** What the API's housekeeping pass hands the sweeps. */
const housekeepingDeps = (env: AgentEnv) => ({
  db: env.api.db,
  config: env.api.config,
  temporal: { client: env.worker.client },
  logger: createLogger({ level: 'silent' }),
});

describe('a recorded session replayed against a new revision', () => {
  test('its http call gets the recorded result and the receiver sees no second request; the candidate runs its own instructions', async ({
    env,
  }) => {
    const receiver = await startWebhookReceiver();
    onTestFinished(() => receiver.close());
    const name = newName();
    await deploy(env, name, { instructions: 'First.', mcps: ['http'] });
    const session = await post<{ id: string }>(env, `/agent/${name}/session`, {});
    const order = { url: receiver.url, method: 'POST', body: '{"order":12}' };
    env.fake.reset();
    env.fake.enqueue({ toolCalls: [{ id: 'c-rec', name: 'http_request', arguments: order }] }, { text: 'Order 12 placed.' });
    const recorded = await post(env, `/session/${session.body.id}`, { parts: [{ type: 'text', text: 'Place order 12' }] });
    expect(recorded.status, recorded.text).toBe(200);
    expect(receiver.requests).toHaveLength(1);

    const candidate = await deploy(env, name, { instructions: 'Second.', mcps: ['http'] }, true);
    const modelCallsBefore = env.fake.requests.length;
    env.fake.enqueue({ toolCalls: [{ id: 'c-eval', name: 'http_request', arguments: order }] }, { text: 'Order 12 placed again.' });
    const id = await startEval(env, name, {
      revision: candidate,
      fromSessions: [session.body.id],
      expect: { contains: 'placed', toolCalls: [{ name: 'http_request', input: { method: 'POST' } }] },
    });
    const run = await evalEnded(env, id);

    expect(run).toMatchObject({
      status: 'completed',
      revision: candidate,
      replayTools: 'recorded',
      summary: { cases: 1, passed: 1, failed: 0 },
    });
    const [only] = run.cases;
    expect(only).toMatchObject({
      status: 'passed',
      passed: true,
      input: 'Place order 12',
      fromSessionId: session.body.id,
      transcript: { reply: 'Order 12 placed again.', toolCalls: [{ name: 'http_request', input: order, replayed: true }] },
      baseline: { reply: 'Order 12 placed.', toolCalls: [{ name: 'http_request', input: order }] },
    });
    expect(only!.verdicts.map((verdict) => [verdict.grader, verdict.passed])).toEqual([
      ['completed', true],
      ['contains', true],
      ['toolCalls', true],
    ]);
    expect(only!.latencyMs).toBeGreaterThan(0);
    // Nothing ran: the receiver still has the recording's one request.
    expect(receiver.requests).toHaveLength(1);
    // The case's session is a session of the candidate, whose instructions the model was given.
    const caseSession = await call<{ revision: number }>(`${env.api.url}/session/${only!.sessionId}`, { headers: env.user.auth });
    expect(caseSession.body.revision).toBe(candidate);
    expect(env.fake.requests[modelCallsBefore]!.body.messages.find((message) => message.role === 'system')?.content).toBe('Second.');
    // The tool result the candidate's model read is the recorded one.
    const events = await env.events(only!.sessionId!);
    const recordedResult = (await env.events(session.body.id)).find((event) => event.type === 'tool.result');
    const replayedResult = events.find((event) => event.type === 'tool.result');
    expect(replayedResult).toMatchObject({ output: (recordedResult as { output: unknown }).output });
    // The case's session is the run's, not a conversation of the agent's users: its listing shows only the recording.
    const listed = await call<{ sessions: Array<{ id: string }> }>(`${env.api.url}/agent/${name}/sessions`, { headers: env.user.auth });
    expect(listed.body.sessions.map((listedSession) => listedSession.id)).toEqual([session.body.id]);
  });

  test('a call no recording matches is reported unmatched, answered with a tool error, and nothing runs', async ({ env }) => {
    const receiver = await startWebhookReceiver();
    onTestFinished(() => receiver.close());
    const name = newName();
    await deploy(env, name, { mcps: ['http'] });
    const session = await post<{ id: string }>(env, `/agent/${name}/session`, {});
    env.fake.reset();
    env.fake.enqueue(
      { toolCalls: [{ id: 'c-rec', name: 'http_request', arguments: { url: receiver.url, method: 'POST', body: 'a' } }] },
      { text: 'Done.' },
    );
    expect((await post(env, `/session/${session.body.id}`, { parts: [{ type: 'text', text: 'Send a' }] })).status).toBe(200);
    env.fake.enqueue(
      { toolCalls: [{ id: 'c-eval', name: 'http_request', arguments: { url: receiver.url, method: 'POST', body: 'b' } }] },
      { text: 'Could not.' },
    );
    const id = await startEval(env, name, { fromSessions: [session.body.id] });
    const run = await evalEnded(env, id);
    const [only] = run.cases;
    expect(only!.transcript!.toolCalls).toEqual([expect.objectContaining({ name: 'http_request', unmatched: true })]);
    const result = (await env.events(only!.sessionId!)).find((event) => event.type === 'tool.result');
    expect(result).toMatchObject({ isError: true, output: { error: expect.stringMatching(/no recorded call of "http_request"/) } });
    expect(receiver.requests).toHaveLength(1);
  });

  test('with unmatched calls run live, only a call safe to run runs: a tool that only reads, or a GET of a marked http tool', async ({
    env,
  }) => {
    const receiver = await startWebhookReceiver();
    onTestFinished(() => receiver.close());
    const name = newName();
    await deploy(env, name, { mcps: ['http', 'time'] });
    const session = await post<{ id: string }>(env, `/agent/${name}/session`, {});
    const send = (body: string) => ({ url: receiver.url, method: 'POST', body });
    env.fake.reset();
    env.fake.enqueue({ toolCalls: [{ id: 'c-rec', name: 'http_request', arguments: send('a') }] }, { text: 'Done.' });
    expect((await post(env, `/session/${session.body.id}`, { parts: [{ type: 'text', text: 'Send a' }] })).status).toBe(200);

    /** One case of the recording against `revision`, whose model makes these http calls and current_time, none recorded. */
    async function replayLive(revision: number, httpCalls: Array<Record<string, unknown>>) {
      env.fake.enqueue(
        {
          toolCalls: [
            ...httpCalls.map((args, index) => ({ id: `h-${revision}-${index}`, name: 'http_request', arguments: args })),
            { id: `t-${revision}`, name: 'current_time', arguments: {} },
          ],
        },
        { text: 'Finished.' },
      );
      const run = await evalEnded(env, await startEval(env, name, { revision, fromSessions: [session.body.id], unmatched: 'live' }));
      const [only] = run.cases;
      expect(only!.transcript!.toolCalls.every((toolCall) => toolCall.unmatched)).toBe(true);
      const results = (await env.events(only!.sessionId!)).filter((event) => event.type === 'tool.result') as Array<{
        toolCallId: string;
        isError?: boolean;
        output: unknown;
      }>;
      return {
        http: httpCalls.map((_args, index) => results.find((result) => result.toolCallId === `h-${revision}-${index}`)!),
        time: results.find((result) => result.toolCallId === `t-${revision}`)!,
      };
    }
    const notSafe = {
      isError: true,
      output: { error: expect.stringMatching(/not marked safe to run in an eval \(the bundle's safeTools\)/) },
    };

    // Unmarked, http does not run; current_time, which only reads, does.
    const unmarked = await replayLive(await deploy(env, name, { mcps: ['http', 'time'] }, true), [send('b')]);
    expect(unmarked.http[0]).toMatchObject(notSafe);
    expect(unmarked.time.isError).toBeFalsy();
    expect(JSON.stringify(unmarked.time.output)).toMatch(/\d{4}-\d{2}-\d{2}/);
    expect(receiver.requests).toHaveLength(1);

    // Marked safe, an unmatched GET runs for real; a POST still does not: it would send something.
    const marked = await replayLive(await deploy(env, name, { mcps: ['http', 'time'], safeTools: { http: ['http_request'] } }, true), [
      { url: `${receiver.url}/status`, method: 'GET' },
      send('c'),
    ]);
    expect(marked.http[0]!.isError).toBeFalsy();
    expect(marked.http[1]).toMatchObject(notSafe);
    expect(receiver.requests.map((request) => [request.method, request.body])).toEqual([
      ['POST', 'a'],
      ['GET', ''],
    ]);
  });

  test("a client's tool is answered from the recording: a matching call gets the recorded result, another the replay's error", async ({
    env,
  }) => {
    const lookup = {
      id: 'lookup_order',
      description: 'Look up an order',
      parameters: { type: 'object', properties: { orderId: { type: 'string' } }, required: ['orderId'] },
    };
    const name = newName();
    await deploy(env, name, { customTools: [lookup] });
    const session = await post<{ id: string }>(env, `/agent/${name}/session`, {});
    env.fake.reset();
    env.fake.enqueue({ toolCalls: [{ id: 'c-rec', name: 'lookup_order', arguments: { orderId: '12' } }] }, { text: 'It shipped.' });
    const sent = await post<{ status: string }>(env, `/session/${session.body.id}`, { parts: [{ type: 'text', text: 'Where is 12?' }] });
    expect(sent.body.status).toBe('waiting');
    const answered = await post(env, `/session/${session.body.id}/tool-result`, { toolCallId: 'c-rec', output: { status: 'shipped' } });
    expect(answered.status, answered.text).toBe(200);
    await env.waitForEvents(session.body.id, (events) => events.some((event) => event.type === 'turn.completed'));

    env.fake.enqueue(
      {
        toolCalls: [
          { id: 'c-12', name: 'lookup_order', arguments: { orderId: '12' } },
          { id: 'c-13', name: 'lookup_order', arguments: { orderId: '13' } },
        ],
      },
      { text: 'Order 12 shipped.' },
    );
    // Nobody answers the case's client calls: without the recording the case would wait out the client's timeout.
    const run = await evalEnded(env, await startEval(env, name, { fromSessions: [session.body.id] }));
    const [only] = run.cases;
    expect(only).toMatchObject({ status: 'passed', transcript: { reply: 'Order 12 shipped.' } });
    expect(only!.transcript!.toolCalls).toEqual([
      expect.objectContaining({ name: 'lookup_order', input: { orderId: '12' }, replayed: true }),
      expect.objectContaining({ name: 'lookup_order', input: { orderId: '13' }, unmatched: true }),
    ]);
    const results = (await env.events(only!.sessionId!)).filter((event) => event.type === 'tool.result');
    expect(results).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ toolCallId: 'c-12', output: { status: 'shipped' } }),
        expect.objectContaining({ toolCallId: 'c-13', isError: true, output: expect.stringMatching(/no recorded call of "lookup_order"/) }),
      ]),
    );
  });

  test("another agent's call takes the recorded reply and no child runs; a call no recording matches is refused", async ({ env }) => {
    const helper = newName();
    await deploy(env, helper, { instructions: 'Helper.' });
    const name = newName();
    await deploy(env, name, { agents: [{ name: helper }] });
    const session = await post<{ id: string }>(env, `/agent/${name}/session`, {});
    const ask = (message: string, id: string) => ({ id, name: `agent_${helper}`, arguments: { message } });
    env.fake.reset();
    env.fake.enqueue({ toolCalls: [ask('Where is 12?', 'c-rec')] }, { text: 'Order 12 has shipped.' }, { text: 'It shipped.' });
    expect((await post(env, `/session/${session.body.id}`, { parts: [{ type: 'text', text: 'Where is 12?' }] })).status).toBe(200);
    const recorded = (await env.events(session.body.id)).find((event) => event.type === 'tool.result') as { output: unknown };
    expect(recorded.output).toMatchObject({ reply: 'Order 12 has shipped.' });

    env.fake.enqueue({ toolCalls: [ask('Where is 12?', 'c-12'), ask('Where is 13?', 'c-13')] }, { text: 'Order 12 shipped.' });
    const modelCallsBefore = env.fake.requests.length;
    // Run live, an unmatched call is refused all the same: the helper's session would run its tools for real.
    const run = await evalEnded(env, await startEval(env, name, { fromSessions: [session.body.id], unmatched: 'live' }));
    const [only] = run.cases;
    expect(only).toMatchObject({ status: 'passed', transcript: { reply: 'Order 12 shipped.' } });
    expect(only!.transcript!.toolCalls).toEqual([
      expect.objectContaining({ name: `agent_${helper}`, replayed: true }),
      expect.objectContaining({ name: `agent_${helper}`, unmatched: true }),
    ]);
    const events = await env.events(only!.sessionId!);
    expect(events.filter((event) => event.type === 'tool.result')).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ toolCallId: 'c-12', output: recorded.output }),
        expect.objectContaining({ toolCallId: 'c-13', isError: true, output: expect.stringMatching(/the other agent was not called/) }),
      ]),
    );
    // Only the candidate's two steps asked the model: the helper ran in neither call.
    expect(env.fake.requests.length - modelCallsBefore).toBe(2);
    expect(events.some((event) => event.type === 'subagent.started')).toBe(false);
  });
});

describe('written cases', () => {
  test('every check passes and fails with a reason; bounds hold every case', async ({ env }) => {
    const name = newName();
    await deploy(env, name, { mcps: ['time'] });
    env.fake.reset();
    const replies = ['hello world', 'hello', '{"n":1}', 'not json', 'Order 42 shipped'];
    for (const text of replies) env.fake.enqueue({ text });
    env.fake.enqueue({ toolCalls: [{ id: 'c-t', name: 'current_time', arguments: { timezone: 'UTC' } }] }, { text: 'noon' });
    env.fake.enqueue({ text: 'no tools' });
    const id = await startEval(env, name, {
      concurrency: 1,
      cases: [
        { input: 'a', expect: { equals: 'hello world', contains: 'world' } },
        { input: 'b', expect: { equals: 'nope', contains: 'nope' } },
        { input: 'c', expect: { jsonSchema: { type: 'object', required: ['n'] } } },
        { input: 'd', expect: { jsonSchema: { type: 'object' } } },
        { input: 'e', expect: { regex: '^Order \\d+ shipped$' } },
        { input: 'f', expect: { toolCalls: [{ name: 'current_time', input: { timezone: 'UTC' } }] } },
        { input: 'g', expect: { toolCalls: [{ name: 'current_time' }], regex: 'tools?' } },
      ],
      graders: [
        { kind: 'maxLatencyMs', max: 600_000 },
        { kind: 'maxLatencyMs', max: 0 },
      ],
    });
    const run = await evalEnded(env, id);
    expect(run.summary).toMatchObject({ cases: 7, passed: 0, failed: 7, errors: 0, pending: 0 });
    const verdictsOf = (position: number) =>
      Object.fromEntries(
        run.cases[position]!.verdicts.filter((verdict) => verdict.grader !== 'maxLatencyMs').map((verdict) => [
          verdict.grader,
          verdict.passed,
        ]),
      );
    expect(verdictsOf(0)).toEqual({ completed: true, equals: true, contains: true });
    expect(verdictsOf(1)).toEqual({ completed: true, equals: false, contains: false });
    expect(run.cases[1]!.verdicts.find((verdict) => verdict.grader === 'equals')!.explanation).toBe('The reply "hello" is not "nope"');
    expect(verdictsOf(2)).toEqual({ completed: true, jsonSchema: true });
    expect(verdictsOf(3)).toEqual({ completed: true, jsonSchema: false });
    expect(run.cases[3]!.verdicts.find((verdict) => verdict.grader === 'jsonSchema')!.explanation).toMatch(/not JSON/);
    expect(verdictsOf(4)).toEqual({ completed: true, regex: true });
    expect(verdictsOf(5)).toEqual({ completed: true, toolCalls: true });
    expect(verdictsOf(6)).toEqual({ completed: true, toolCalls: false, regex: true });
    expect(run.cases[6]!.verdicts.find((verdict) => verdict.grader === 'toolCalls')!.explanation).toMatch(
      /current_time.*the calls were: none/,
    );
    // Every case within the generous bound, none within 0 ms: each one failed on it alone where the rest passed.
    for (const evalCase of run.cases) {
      const bounds = evalCase.verdicts.filter((verdict) => verdict.grader === 'maxLatencyMs').map((verdict) => verdict.passed);
      expect(bounds).toEqual([true, false]);
    }
    const listed = await call<{ runs: Array<{ id: string }> }>(`${env.api.url}/agent/${name}/evals`, { headers: env.user.auth });
    expect(listed.body.runs.map((listedRun) => listedRun.id)).toEqual([id]);
  });

  test('checks that cannot run are refused before anything runs, at their place', async ({ env }) => {
    const name = newName();
    await deploy(env, name, {});
    const refused = async (body: Record<string, unknown>, status: number, pattern: RegExp) => {
      const response = await post(env, `/agent/${name}/evals`, body);
      expect(response.status, response.text).toBe(status);
      expect(response.text).toMatch(pattern);
    };
    await refused({ cases: [{ input: 'x', expect: { regex: '(?=a)b' } }] }, 400, /\/cases\/0\/expect\/regex/);
    await refused({ cases: [{ input: 'x', expect: { jsonSchema: { type: 'nothing' } } }] }, 400, /\/cases\/0\/expect\/jsonSchema/);
    await refused({}, 400, /exactly one of cases, set and fromSessions/);
    await refused({ cases: [{ input: 'x' }], fromSessions: ['ses_x'] }, 400, /exactly one/);
    await refused({ fromSessions: ['ses_nothere'] }, 404, /not a session of the agent/);
    await refused({ set: 'no-such-set' }, 404, /no eval set ..?no-such-set/);
    await refused({ revision: 9, cases: [{ input: 'x' }] }, 404, /no revision 9/);
    expect((await call(`${env.api.url}/evals/evl_nothere`, { headers: env.user.auth })).status).toBe(404);
  });
});

test('a cancelled run aborts the case still running, and ends cancelled', async ({ env }) => {
  const name = newName();
  await deploy(env, name, {});
  env.fake.reset();
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  onTestFinished(() => release());
  env.fake.enqueue({ text: 'late', holdUntil: held });
  const id = await startEval(env, name, { cases: [{ input: 'wait' }] });
  await vi.waitFor(
    async () => {
      const read = await call<EvalRunView>(`${env.api.url}/evals/${id}`, { headers: env.user.auth });
      expect(read.body.cases[0]!.sessionId).not.toBeNull();
    },
    { timeout: 20_000 },
  );
  const cancelled = await post(env, `/evals/${id}/cancel`);
  expect(cancelled.status).toBe(202);
  const run = await evalEnded(env, id, 30_000);
  expect(run.status).toBe('cancelled');
  expect(run.cases[0]!.status).toBe('cancelled');
  await env.waitForEvents(run.cases[0]!.sessionId!, (events) => events.some((event) => event.type === 'turn.aborted'), 30_000);
});

describe('stored sets and a gated promote', () => {
  test('a set is versioned; a run names it; promote with requireEval waits for a passing run of that revision', async ({ env }) => {
    const name = newName();
    await deploy(env, name, { instructions: 'Old.' });
    const candidate = await deploy(env, name, { instructions: 'New.' }, true);
    const setName = `smoke-${crypto.randomUUID().slice(0, 6)}`;
    const put = (cases: unknown[]) =>
      call<{ version: number; cases: number }>(`${env.api.url}/eval-set/${setName}`, {
        method: 'PUT',
        headers: env.user.auth,
        json: { cases },
      });
    expect((await put([{ input: 'hi', expect: { contains: 'hello' } }])).body).toMatchObject({ version: 1, cases: 1 });
    expect(
      (
        await put([
          { input: 'hi', expect: { contains: 'hello' } },
          { input: 'bye', expect: { contains: 'bye' } },
        ])
      ).body,
    ).toMatchObject({ version: 2, cases: 2 });
    expect((await put([{ input: 'x', expect: { regex: '(?<=a)b' } }])).status).toBe(400);
    expect(
      (await call(`${env.api.url}/eval-set/Bad Name`, { method: 'PUT', headers: env.user.auth, json: { cases: [{ input: 'x' }] } })).status,
    ).toBe(400);
    const first = await call<{ version: number; items: Array<{ input: string }> }>(`${env.api.url}/eval-set/${setName}?version=1`, {
      headers: env.user.auth,
    });
    expect(first.body).toMatchObject({ version: 1, items: [{ input: 'hi' }] });
    const listed = await call<{ sets: Array<{ name: string; version: number }> }>(`${env.api.url}/eval-set`, { headers: env.user.auth });
    expect(listed.body.sets.find((set) => set.name === setName)).toMatchObject({ version: 2 });

    // No run yet: refused, saying how to get one.
    const gated = { revision: candidate, requireEval: { set: setName, minScore: 1 } };
    const refused = await post<{ detail: string }>(env, `/agent/${name}/promote`, gated);
    expect(refused.status).toBe(409);
    expect(refused.body.detail).toMatch(/no completed eval run against the set/);

    // A run of the latest version (2 cases) where one fails: 50%, under the bar.
    env.fake.reset();
    env.fake.enqueue({ text: 'hello' }, { text: 'see you' });
    const failing = await evalEnded(env, await startEval(env, name, { revision: candidate, set: setName, concurrency: 1 }));
    expect(failing).toMatchObject({ set: { name: setName, version: 2 }, summary: { passed: 1, failed: 1 } });
    const under = await post<{ detail: string }>(env, `/agent/${name}/promote`, gated);
    expect(under.status).toBe(409);
    expect(under.body.detail).toMatch(/passed 50% of its cases, under the 100% required/);
    expect((await post(env, `/agent/${name}/promote`, { ...gated, requireEval: { set: setName, minScore: 0.5 } })).status).toBe(200);
    // Back, then the same gate at 100% once a run passes every case.
    await post(env, `/agent/${name}/rollback`);
    env.fake.enqueue({ text: 'hello' }, { text: 'bye' });
    const passing = await evalEnded(env, await startEval(env, name, { revision: candidate, set: `${setName}@2`, concurrency: 1 }));
    expect(passing.summary).toMatchObject({ passed: 2, failed: 0 });
    const promoted = await post<{ live: number }>(env, `/agent/${name}/promote`, gated);
    expect(promoted.status, JSON.stringify(promoted.body)).toBe(200);
    expect(promoted.body.live).toBe(candidate);
  });
});

test('a run recorded whose workflow never started (the engine did not answer) is started by the housekeeping pass', async ({ env }) => {
  const name = newName();
  await deploy(env, name, {});
  const id = await recordedRunOnly(env, name, [{ input: 'late', expect: { contains: 'on time' } }]);
  const deps = housekeepingDeps(env);
  expect(await startUnstartedRuns(deps)).toBe(0);
  await env.api.db.query(`UPDATE eval_runs SET created_at = now() - interval '5 minutes' WHERE id = $1`, [id]);
  env.fake.reset();
  env.fake.enqueue({ text: 'on time after all' });
  expect(await startUnstartedRuns(deps)).toBe(1);
  expect((await evalEnded(env, id)).summary).toMatchObject({ cases: 1, passed: 1 });
  expect(await startUnstartedRuns(deps)).toBe(0);
});

test('at most EVAL_RUNS_PER_USER runs at once (429 beyond); a run cancelled before its workflow started never starts', async ({ env }) => {
  const name = newName();
  await deploy(env, name, {});
  // Five runs recorded whose workflows never started: running, as far as the limit is concerned.
  const ids: string[] = [];
  for (let i = 0; i < 5; i++) ids.push(await recordedRunOnly(env, name, [{ input: 'never' }]));
  const refused = await call(`${env.api.url}/agent/${name}/evals`, { headers: env.user.auth, json: { cases: [{ input: 'one more' }] } });
  expect(refused.status).toBe(429);
  expect(refused.headers.get('retry-after')).toBe('30');

  // Cancelled before it started: it ends cancelled at once, and the housekeeping pass leaves it.
  expect((await post(env, `/evals/${ids[0]}/cancel`)).status).toBe(202);
  await env.api.db.query(`UPDATE eval_runs SET created_at = now() - interval '5 minutes' WHERE id = ANY($1)`, [ids]);
  for (const id of ids.slice(1)) await env.api.db.query(`UPDATE eval_runs SET status = 'cancelled' WHERE id = $1`, [id]);
  const deps = housekeepingDeps(env);
  expect(await startUnstartedRuns(deps)).toBe(0);
  const read = await call<EvalRunView>(`${env.api.url}/evals/${ids[0]}`, { headers: env.user.auth });
  expect(read.body).toMatchObject({ status: 'cancelled', summary: { cases: 1, cancelled: 1, pending: 0 } });
});
