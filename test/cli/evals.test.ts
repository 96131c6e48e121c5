// Evals from the built `agent-service` binary against the real service (fake model): `eval run` of a
// JSONL file of cases with --wait as a CI gate (exit 0 when every case passes, 1 below --min-score, with
// the failing check's explanation in the report), `eval show` and `eval ls` in both forms, rubric judges
// with their model and least score (each judge's score and cost in the report), a recorded session replayed, a stored set run and required by `promote --require-eval`, a run cancelled, and a
// cases file that is wrong refused before anything is sent.
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, vi } from 'vitest';
import { agentTest } from '../helpers/harness/fixtures.ts';
import type { AgentEnv } from '../helpers/harness/agent-env.ts';
import type { EvalRunView } from '../../contract/operations/evals.ts';
import { call } from '../helpers/client/request.ts';
import { ensureBuilt, loginWith, newConfigDir, runCli, type CliResult } from './run-cli.ts';

const test = agentTest();

const FAKE_MODEL = { providerId: 'openai-compatible', modelId: 'fake-model' };

beforeAll(() => ensureBuilt());

/** A logged-in config directory (also the commands' working directory) and a deployed agent. */
async function workspace(env: AgentEnv): Promise<{ configDir: string; name: string }> {
  const configDir = newConfigDir();
  await loginWith(configDir, env.api.url, env.user.apiKey);
  const { name } = await env.deploy({ instructions: 'Answer briefly.' });
  return { configDir, name };
}

/** Writes a cases file into the workspace, one JSON value per line (`null`: a blank line). */
function writeJsonl(configDir: string, file: string, lines: Array<unknown>): void {
  fs.writeFileSync(path.join(configDir, file), lines.map((line) => (line === null ? '' : JSON.stringify(line))).join('\n') + '\n');
}

function ok(result: CliResult): CliResult {
  expect(result.code, result.stderr).toBe(0);
  return result;
}

/** The id the report's first field names. */
const evalIdOf = (report: string) => /^eval:\s+(evl_\S+)$/m.exec(report)![1]!;

test('eval run --estimate prints what the run would cost and runs nothing', async ({ env }) => {
  const { configDir, name } = await workspace(env);
  writeJsonl(configDir, 'cases.jsonl', [{ input: 'a' }, { input: 'b' }]);
  // A new agent has no turns to go by.
  const unknown = ok(await runCli(['eval', 'run', name, '--cases', 'cases.jsonl', '--estimate'], { configDir }));
  expect(unknown.stdout).toBe('unknown\n');
  expect(unknown.stderr).toContain('2 cases: The agent has no turns yet to estimate from');
  const json = JSON.parse(ok(await runCli(['eval', 'run', name, '--cases', 'cases.jsonl', '--estimate', '--json'], { configDir })).stdout);
  expect(json).toEqual({ cases: 2, estimate: { costUsd: null, basis: 'The agent has no turns yet to estimate from' } });
  const listed = await call<{ runs: unknown[] }>(`${env.api.url}/agent/${name}/evals`, { headers: env.user.auth });
  expect(listed.body.runs).toEqual([]);
});

describe('eval run --wait, the CI gate', () => {
  test('every case passes: exit 0 with the report; eval show and eval ls print it again, --json the service’s answers', async ({ env }) => {
    const { configDir, name } = await workspace(env);
    writeJsonl(configDir, 'cases.jsonl', [
      { input: 'What is 2+2?', expect: { contains: '4' } },
      null,
      { input: 'Say hi', expect: { regex: '^hi\\b' } },
    ]);
    env.fake.reset();
    env.fake.enqueue({ text: 'It is 4.' }, { text: 'hi there' });

    const run = ok(await runCli(['eval', 'run', name, '--cases', 'cases.jsonl', '--concurrency', '1', '--wait'], { configDir }));
    expect(run.stdout).toMatch(/^agent:\s+.+\nrevision:\s+1\nstatus:\s+completed\n/m);
    expect(run.stdout).toMatch(/^ID\s+STATUS\s+INPUT\s+FAILED CHECKS\n0\s+passed\s+What is 2\+2\?\s+-\n1\s+passed\s+Say hi\s+-\n/m);
    expect(run.stdout).toContain('2 of 2 passed (score 1.00), 0 failed, 0 errors, 0 cancelled, 0 pending');
    expect(run.stderr).toContain('Score 1.00 meets --min-score 1.');
    const id = evalIdOf(run.stdout);

    // `show` prints the same report (its ages aside); its JSON is the service's run with every case and transcript.
    const cases = (report: string) => report.slice(report.indexOf('ID  '));
    expect(cases(ok(await runCli(['eval', 'show', id], { configDir })).stdout)).toBe(cases(run.stdout));
    const shown = JSON.parse(ok(await runCli(['eval', 'show', id, '--json'], { configDir })).stdout) as EvalRunView;
    expect(shown).toMatchObject({ id, agent: name, revision: 1, status: 'completed', summary: { cases: 2, passed: 2 } });
    expect(shown.cases.map((evalCase) => [evalCase.input, evalCase.transcript?.reply])).toEqual([
      ['What is 2+2?', 'It is 4.'],
      ['Say hi', 'hi there'],
    ]);

    const listed = ok(await runCli(['eval', 'ls', name], { configDir })).stdout;
    expect(listed).toMatch(/^ID\s+REVISION\s+STATUS\s+PASSED\s+SCORE\s+COST\s+STARTED\n/);
    expect(listed).toMatch(new RegExp(`^${id}\\s+1\\s+completed\\s+2/2\\s+1\\.00\\s`, 'm'));
    const runs = JSON.parse(ok(await runCli(['eval', 'ls', name, '--json'], { configDir })).stdout) as Array<{ id: string }>;
    expect(runs.map((listedRun) => listedRun.id)).toEqual([id]);
  });

  test('a failing case fails the gate: exit 1, the failed check’s explanation in the report; --min-score lowers the bar', async ({
    env,
  }) => {
    const { configDir, name } = await workspace(env);
    writeJsonl(configDir, 'cases.jsonl', [
      { input: 'Answer yes', expect: { equals: 'yes' } },
      { input: 'Answer no', expect: { equals: 'no' } },
    ]);
    env.fake.reset();
    env.fake.enqueue({ text: 'yes' }, { text: 'maybe' });
    const failed = await runCli(['eval', 'run', name, '--cases', 'cases.jsonl', '--concurrency', '1', '--wait'], { configDir });
    expect(failed.code, failed.stderr).toBe(1);
    expect(failed.stdout).toMatch(/^1\s+failed\s+Answer no\s+equals: The reply "maybe" is not "no"$/m);
    expect(failed.stdout).toContain('1 of 2 passed (score 0.50), 1 failed');
    expect(failed.stderr).toContain('Score 0.50 is below --min-score 1: the gate fails.');

    // Half passing is enough at --min-score 0.5; --json prints the run alone on stdout.
    env.fake.enqueue({ text: 'yes' }, { text: 'maybe' });
    const lowered = ok(
      await runCli(['eval', 'run', name, '--cases', 'cases.jsonl', '--concurrency', '1', '--wait', '--min-score', '0.5', '--json'], {
        configDir,
      }),
    );
    const run = JSON.parse(lowered.stdout) as EvalRunView;
    expect(run.summary).toMatchObject({ cases: 2, passed: 1, failed: 1 });
    expect(run.cases[1]!.verdicts).toContainEqual({ grader: 'equals', passed: false, explanation: 'The reply "maybe" is not "no"' });
  });

  test('--rubric judges with --judge-model and --judge-min-score: each judge’s model, score and cost in the report', async ({ env }) => {
    const { configDir, name } = await workspace(env);
    writeJsonl(configDir, 'cases.jsonl', [{ input: 'Hi, I am Ada' }]);
    env.fake.reset();
    // The case's turn, then its two judges in the order given.
    const costing = (text: string, cost: number) => ({ text, usage: { promptTokens: 10, completionTokens: 5, cost } });
    env.fake.enqueue(
      costing('Hello Ada.', 0.01),
      costing('{"score": 0.9, "reason": "Uses the name."}', 0.002),
      costing('{"score": 0.5, "reason": "Curt."}', 0.003),
    );
    const args = ['--rubric', 'Greets the user by name', '--rubric', 'Is warm'];
    const judge = ['--judge-model', 'openai-compatible/fake-model-large', '--judge-min-score', '0.8'];
    const run = await runCli(['eval', 'run', name, '--cases', 'cases.jsonl', ...args, ...judge, '--wait'], { configDir });
    expect(run.code, run.stderr).toBe(1);
    expect(run.stdout).toMatch(
      /^0\s+failed\s+Hi, I am Ada\s+rubric: Scored 0\.5 by openai-compatible\/fake-model-large, below the 0\.8 needed: Curt\.$/m,
    );
    const judges = /^CASE\s+JUDGE\s+SCORE\s+VERDICT\s+COST\n(.*)\n(.*)\n/m;
    expect(
      judges
        .exec(run.stdout)
        ?.slice(1)
        .map((row) => row.split(/\s+/)),
    ).toEqual([
      ['0', 'openai-compatible/fake-model-large', '0.90', 'passed', '$0.0020'],
      ['0', 'openai-compatible/fake-model-large', '0.50', 'failed', '$0.0030'],
    ]);
    // The judges asked the model named, each with its own rubric; the case's cost is its turn's and its judges'.
    expect(env.fake.requests.map((request) => request.body.model)).toEqual(['fake-model', 'fake-model-large', 'fake-model-large']);
    expect(JSON.stringify(env.fake.requests[1]!.body.messages)).toContain('Greets the user by name');
    expect(JSON.stringify(env.fake.requests[2]!.body.messages)).toContain('Is warm');
    expect(run.stdout).toContain('0 of 1 passed (score 0.00), 1 failed, 0 errors, 0 cancelled, 0 pending; cost $0.0150');

    const id = evalIdOf(run.stdout);
    expect(judges.exec(ok(await runCli(['eval', 'show', id], { configDir })).stdout)?.[0]).toBe(judges.exec(run.stdout)?.[0]);
    const shown = JSON.parse(ok(await runCli(['eval', 'show', id, '--json'], { configDir })).stdout) as EvalRunView;
    expect(shown.cases[0]!.verdicts.filter((verdict) => verdict.grader === 'rubric')).toMatchObject([
      {
        passed: true,
        score: 0.9,
        judge: { model: 'openai-compatible/fake-model-large', answer: '{"score": 0.9, "reason": "Uses the name."}' },
      },
      { passed: false, score: 0.5, judge: { costUsd: 0.003 } },
    ]);
  });

  test('a recorded session replayed with --expect-contains, graded against the candidate’s reply', async ({ env }) => {
    const { configDir, name } = await workspace(env);
    env.fake.reset();
    env.fake.enqueue({ text: 'Recorded answer.' });
    const sent = ok(await runCli(['send', name, 'Where is my order?'], { configDir }));
    const sessionId = /session (ses_\S+)/.exec(sent.stderr)![1]!;

    env.fake.enqueue({ text: 'Your order shipped.' });
    const run = ok(
      await runCli(['eval', 'run', name, '--from-session', sessionId, '--expect-contains', 'shipped', '--wait', '--json'], { configDir }),
    );
    const [only] = (JSON.parse(run.stdout) as EvalRunView).cases;
    expect(only).toMatchObject({
      status: 'passed',
      input: 'Where is my order?',
      fromSessionId: sessionId,
      transcript: { reply: 'Your order shipped.' },
      baseline: { reply: 'Recorded answer.' },
    });
    expect(only!.verdicts.map((verdict) => verdict.grader)).toEqual(['completed', 'contains']);
  });
});

test('a stored set: put, ls, show, a run naming it, and promote --require-eval refusing, then promoting', async ({ env }) => {
  const { configDir, name } = await workspace(env);
  const staged = await call<{ revision: number }>(`${env.api.url}/deploy?stage=1`, {
    headers: env.user.auth,
    json: { name, model: FAKE_MODEL, instructions: 'Second.' },
  });
  expect(staged.body.revision).toBe(2);
  const set = `smoke-${name}`;
  writeJsonl(configDir, 'smoke.jsonl', [{ input: 'Ping', expect: { equals: 'pong' } }]);
  expect(ok(await runCli(['eval', 'set', 'put', set, 'smoke.jsonl'], { configDir })).stderr).toContain(`Stored ${set} version 1 (1 case).`);
  expect(JSON.parse(ok(await runCli(['eval', 'set', 'put', set, 'smoke.jsonl', '--json'], { configDir })).stdout)).toMatchObject({
    name: set,
    version: 2,
    cases: 1,
  });
  expect(ok(await runCli(['eval', 'set', 'ls'], { configDir })).stdout).toMatch(new RegExp(`^${set}\\s+2\\s+1\\s`, 'm'));
  expect(ok(await runCli(['eval', 'set', 'show', `${set}@1`], { configDir })).stdout).toMatch(/^0\s+Ping\s+equals$/m);

  // Without a passing run against the set, promote --require-eval is refused and nothing changes.
  const refused = await runCli(['promote', name, '2', '--require-eval', set], { configDir });
  expect(refused.code).toBe(1);
  expect(refused.stderr).toMatch(/no completed eval run against the set/);
  expect((await runCli(['promote', name, '2', '--min-score', '0.5'], { configDir })).code).toBe(2);

  env.fake.reset();
  env.fake.enqueue({ text: 'pong' });
  const run = ok(await runCli(['eval', 'run', name, '--revision', '2', '--set', set, '--wait'], { configDir }));
  expect(run.stdout).toMatch(new RegExp(`^set:\\s+${set}@2$`, 'm'));
  expect(ok(await runCli(['promote', name, '2', '--require-eval', set], { configDir })).stderr).toContain(
    `${name}: revision 2 is live (was 1).`,
  );
});

test('eval run without --wait prints the id at once; eval cancel stops the run', async ({ env }) => {
  const { configDir, name } = await workspace(env);
  writeJsonl(configDir, 'cases.jsonl', [{ input: 'Take your time' }]);
  env.fake.reset();
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  try {
    env.fake.enqueue({ text: 'late', holdUntil: held });
    const started = ok(await runCli(['eval', 'run', name, '--cases', 'cases.jsonl'], { configDir }));
    const id = started.stdout.trim();
    expect(id).toMatch(/^evl_/);
    expect(started.stderr).toContain(`agent-service eval show ${id}`);
    const show = async () => JSON.parse(ok(await runCli(['eval', 'show', id, '--json'], { configDir })).stdout) as EvalRunView;
    await vi.waitFor(async () => expect((await show()).cases[0]!.status).toBe('running'), { timeout: 20_000, interval: 200 });

    expect(ok(await runCli(['eval', 'cancel', id], { configDir })).stderr).toContain(`Cancelling ${id}`);
    await vi.waitFor(async () => expect((await show()).status).toBe('cancelled'), { timeout: 30_000, interval: 300 });
    expect((await show()).cases[0]!.status).toBe('cancelled');
    expect(ok(await runCli(['eval', 'show', id], { configDir })).stdout).toContain(
      '0 of 1 passed (score 0.00), 0 failed, 0 errors, 1 cancelled, 0 pending',
    );
  } finally {
    release();
  }
});

test('a wrong cases file or command line exits 2 and starts nothing; a check the service refuses is shown at its line', async ({ env }) => {
  const { configDir, name } = await workspace(env);
  fs.writeFileSync(path.join(configDir, 'broken.jsonl'), '{"input": "fine"}\n{"input": "unclosed"\n');
  writeJsonl(configDir, 'typo.jsonl', [{ input: 'a' }, { input: 'b', expcet: { contains: 'b' } }]);
  fs.writeFileSync(path.join(configDir, 'object.json'), '{"input": "a"}');
  writeJsonl(configDir, 'cases.jsonl', [{ input: 'a' }]);
  const refusals: Array<[string[], RegExp]> = [
    [['--cases', 'missing.jsonl'], /Cannot read missing\.jsonl/],
    [['--cases', 'broken.jsonl'], /broken\.jsonl:2: not a JSON case/],
    [['--cases', 'typo.jsonl'], /typo\.jsonl:2: unknown field "expcet"/],
    [['--cases', 'object.json'], /object\.json: a \.json file of cases holds an array/],
    [[], /Give the cases/],
    [['--cases', 'cases.jsonl', '--from-session', 'ses_1'], /one of --cases, --set and --from-session/],
    [['--set', 'smoke', '--expect-contains', 'x'], /a stored set keeps the checks/],
    [['--set', 'Smoke!'], /Not a set: "Smoke!"/],
    [['--cases', 'cases.jsonl', '--min-score', '0.9'], /add --wait/],
    [['--cases', 'cases.jsonl', '--wait', '--min-score', '1.5'], /--min-score takes a number from 0 to 1/],
    [['--cases', 'cases.jsonl', '--concurrency', '11'], /--concurrency takes a whole number from 1 to 10/],
    [['--cases', 'cases.jsonl', '--replay', 'sometimes'], /Allowed choices are recorded, live/],
    [['--cases', 'cases.jsonl', '--judge-min-score', '0.5'], /set up a rubric judge: add --rubric/],
    [['--cases', 'cases.jsonl', '--rubric', ' '], /--rubric takes a non-empty text/],
    [['--cases', 'cases.jsonl', '--rubric', 'Polite', '--judge-model', 'fake-model'], /--judge-model takes <provider>\/<model>/],
    [['--cases', 'cases.jsonl', '--rubric', 'Polite', '--judge-model', 'acme/x'], /"acme" is not a provider/],
    [['--cases', 'cases.jsonl', '--rubric', 'Polite', '--judge-min-score', '70'], /--judge-min-score takes a number from 0 to 1/],
  ];
  for (const [args, message] of refusals) {
    const result = await runCli(['eval', 'run', name, ...args], { configDir });
    expect(result.code, args.join(' ')).toBe(2);
    expect(result.stderr).toMatch(message);
  }
  expect(JSON.parse(ok(await runCli(['eval', 'ls', name, '--json'], { configDir })).stdout)).toEqual([]);

  // A pattern RE2 cannot run is the service's to refuse (exit 1), shown at the case's line.
  writeJsonl(configDir, 'lookahead.jsonl', [{ input: 'a' }, { input: 'b', expect: { regex: '(?=b)b' } }]);
  const refused = await runCli(['eval', 'run', name, '--cases', 'lookahead.jsonl'], { configDir });
  expect(refused.code).toBe(1);
  expect(refused.stderr).toMatch(/^lookahead\.jsonl:2 {2}\/expect\/regex: cannot run on RE2/m);
  expect(JSON.parse(ok(await runCli(['eval', 'ls', name, '--json'], { configDir })).stdout)).toEqual([]);
});
