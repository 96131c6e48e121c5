// An eval's report in the dashboard against the real service (fake model): a recorded session replayed
// against a staged revision, reached from the agent page's list of runs; the case's failing check with
// its explanation, and the candidate's transcript beside the recorded one: each reply, and each tool
// call marked replayed (answered from the recording) or unmatched (no recorded call left to answer it);
// and a rubric judge's verdicts: its score beside the badge, its prompt, answer, model and cost a click away.
import { expect, vi } from 'vitest';
import { agentTest } from '../helpers/harness/fixtures.ts';
import { call } from '../helpers/client/request.ts';
import type { EvalRunView } from '../../contract/operations/evals.ts';
import { browserForTests, expectAccessible, openPage, screenshot, signIn } from './browser.ts';

const test = agentTest();
const browser = browserForTests();

test('the report of a replayed session: the failing check’s explanation, the candidate beside the baseline', async ({ env }) => {
  const { name } = await env.deploy({ instructions: 'First.', mcps: ['time'] });
  const post = <T>(path: string, json: unknown) => call<T>(`${env.api.url}${path}`, { method: 'POST', headers: env.user.auth, json });

  // The recording: one call of current_time, then the reply.
  const session = await post<{ id: string }>(`/agent/${name}/session`, {});
  env.fake.reset();
  env.fake.enqueue({ toolCalls: [{ id: 'c-rec', name: 'current_time', arguments: { timezone: 'UTC' } }] }, { text: 'It is noon in UTC.' });
  expect((await post(`/session/${session.body.id}`, { parts: [{ type: 'text', text: 'What time is it?' }] })).status).toBe(200);

  // The candidate, staged: it makes the recorded call and one the recording has not, and replies otherwise.
  const staged = await call<{ revision: number }>(`${env.api.url}/deploy?stage=1`, {
    headers: env.user.auth,
    json: { name, model: { providerId: 'openai-compatible', modelId: 'fake-model' }, instructions: 'Second.', mcps: ['time'] },
  });
  expect(staged.body.revision).toBe(2);
  env.fake.enqueue(
    {
      toolCalls: [
        { id: 'c-1', name: 'current_time', arguments: { timezone: 'UTC' } },
        { id: 'c-2', name: 'current_time', arguments: { timezone: 'Asia/Tokyo' } },
      ],
    },
    { text: 'It is midnight somewhere.' },
  );
  const started = await post<{ id: string }>(`/agent/${name}/evals`, {
    revision: 2,
    fromSessions: [session.body.id],
    expect: { contains: 'noon' },
  });
  expect(started.status, started.text).toBe(202);
  const id = started.body.id;
  const run = await vi.waitFor(
    async () => {
      const read = await call<EvalRunView>(`${env.api.url}/evals/${id}`, { headers: env.user.auth });
      expect(read.body.status).toBe('completed');
      return read.body;
    },
    { timeout: 60_000, interval: 250 },
  );
  expect(run.cases[0]!.status).toBe('failed');

  const { page, faults, close } = await openPage(browser());
  try {
    // The agent page lists the run; its link opens the report.
    await signIn(page, env.api.url, env.user.apiKey, `/app/agents/${name}`);
    const evals = page.getByRole('region', { name: 'Evals', exact: true });
    const row = evals.getByRole('row').filter({ hasText: id });
    await expect.poll(() => row.textContent()).toContain('0 of 1 passed (0%)');
    expect(await row.locator('td').nth(1).textContent()).toBe('2');
    await evals.getByRole('link', { name: id }).click();
    await page.getByRole('heading', { name: `Eval ${id}`, level: 1 }).waitFor();
    expect(page.url()).toBe(`${env.api.url}/app/evals/${id}`);

    const facts = await page.locator('dl.facts').textContent();
    expect(facts).toContain('Revision2');
    expect(facts).toContain('0 of 1 passed (0%); 1 failed, 0 errors, 0 cancelled, 0 pending');
    expect(facts).toContain('answered with the recorded results');

    const only = page.getByRole('listitem', { name: /^Case 0/ });
    expect(await only.getByRole('heading', { level: 3 }).textContent()).toBe('Case 0 failed');
    expect(await only.locator('p.message-text').first().textContent()).toBe('What time is it?');
    // The failing check, in its own words; the ones that passed beside it.
    const checks = only.getByRole('table', { name: 'Checks of case 0' });
    const verdicts = await Promise.all(
      (await checks.locator('tbody tr').all()).map(async (line) => (await line.locator('td').allTextContents()).join(' | ')),
    );
    expect(verdicts).toEqual([
      'completed | passed | The turn completed',
      'contains | failed | The reply "It is midnight somewhere." does not contain "noon"',
    ]);

    // Side by side: the candidate's reply and calls, marked; the recording's reply and its one call.
    const candidate = only.getByRole('region', { name: 'Candidate, revision 2' });
    const baseline = only.getByRole('region', { name: 'Baseline, the recorded session' });
    expect(await candidate.locator('p.message-text').textContent()).toBe('It is midnight somewhere.');
    expect(await baseline.locator('p.message-text').textContent()).toBe('It is noon in UTC.');
    /** Each tool call of one side: the tool's name and its marks. */
    const calls = async (side: typeof candidate) =>
      Promise.all(
        (await side.getByRole('list', { name: 'Tool calls' }).getByRole('listitem').all()).map(async (item) => [
          await item.locator('code').textContent(),
          ...(await item.locator('.badge').allTextContents()),
        ]),
      );
    expect(await calls(candidate)).toEqual([
      ['current_time', 'replayed'],
      ['current_time', 'unmatched'],
    ]);
    expect(await calls(baseline)).toEqual([['current_time']]);
    // The two sit side by side on a wide screen.
    const [left, right] = [await candidate.boundingBox(), await baseline.boundingBox()];
    expect(right!.x).toBeGreaterThan(left!.x + left!.width - 1);
    expect(Math.abs(right!.y - left!.y)).toBeLessThan(2);
    await candidate.getByText('Input').first().click();
    expect(await candidate.locator('pre').first().textContent()).toContain('"timezone": "UTC"');
    // The recorded session and the case's own session are a click away.
    expect(await baseline.getByRole('link', { name: session.body.id }).getAttribute('href')).toBe(`/app/sessions/${session.body.id}`);
    expect(await only.getByRole('link', { name: "the case's session" }).getAttribute('href')).toBe(
      `/app/sessions/${run.cases[0]!.sessionId}`,
    );
    // A run that ended offers no Cancel.
    expect(await page.getByRole('button', { name: 'Cancel the run' }).count()).toBe(0);

    await expectAccessible(page);
    await screenshot(page, 'eval-report');
    expect(faults).toEqual([]);
  } finally {
    await close();
  }
});

test('a rubric judge’s verdict: its score, and its prompt, answer, model and cost behind a disclosure', async ({ env }) => {
  const { name } = await env.deploy({ instructions: 'Greet people.' });
  const rubric = 'The reply greets the user by name.';
  const costing = (text: string, cost: number) => ({ text, usage: { promptTokens: 10, completionTokens: 5, cost } });
  env.fake.reset();
  // One case at a time: each case's turn, then its judge (the second answers without a score).
  env.fake.enqueue(
    costing('Hello Ada.', 0.01),
    costing('{"score": 0.9, "reason": "Greets Ada by name."}', 0.002),
    costing('Hello.', 0.01),
    costing('It is fine I guess', 0.001),
  );
  const started = await call<{ id: string }>(`${env.api.url}/agent/${name}/evals`, {
    method: 'POST',
    headers: env.user.auth,
    json: { cases: [{ input: 'Hi, I am Ada' }, { input: 'Hi, I am Bo' }], graders: [{ kind: 'rubric', rubric }], concurrency: 1 },
  });
  expect(started.status, started.text).toBe(202);
  const id = started.body.id;
  await vi.waitFor(
    async () => expect((await call<EvalRunView>(`${env.api.url}/evals/${id}`, { headers: env.user.auth })).body.status).toBe('completed'),
    { timeout: 60_000, interval: 250 },
  );

  const { page, faults, close } = await openPage(browser());
  try {
    await signIn(page, env.api.url, env.user.apiKey, `/app/evals/${id}`);
    await page.getByRole('heading', { name: `Eval ${id}`, level: 1 }).waitFor();
    const judgeRow = (position: number) =>
      page
        .getByRole('table', { name: `Checks of case ${position}` })
        .locator('tbody tr')
        .filter({ has: page.locator('code', { hasText: /^rubric$/ }) });

    // The judged case: passed, with its score, and the explanation naming the judge and the score needed.
    const scored = judgeRow(0);
    expect(await scored.locator('td').nth(1).locator('.badge').textContent()).toBe('passed');
    expect(await scored.locator('.score').textContent()).toBe('score 0.90');
    expect(await scored.locator('td').nth(2).textContent()).toContain(
      'Scored 0.9 by openai-compatible/fake-model, at least the 0.7 needed: Greets Ada by name.',
    );
    // Its work is folded away until asked for: the model, what it cost, the prompt (the rubric and the reply) and the answer.
    const work = scored.locator('details.judge');
    expect(await work.getAttribute('open')).toBeNull();
    await work.getByText('The judge’s prompt and answer').click();
    const facts = async () =>
      Object.fromEntries(
        await Promise.all(
          (await work.locator('dt').all()).map(async (term) => [
            await term.textContent(),
            await term.locator('xpath=following-sibling::dd[1]').textContent(),
          ]),
        ),
      ) as Record<string, string>;
    const shown = await facts();
    expect(shown).toMatchObject({
      Model: 'openai-compatible/fake-model',
      Cost: '$0.0020',
      Answer: '{"score": 0.9, "reason": "Greets Ada by name."}',
    });
    expect(shown.Prompt).toMatch(/^You grade the reply of an AI agent against a rubric/);
    expect(shown.Prompt).toContain(rubric);
    expect(shown.Prompt).toContain('Hello Ada.');
    expect(await work.locator('pre').first().isVisible()).toBe(true);

    // The case whose judge wrote no score: failed, no score shown, and the answer it wrote there to read.
    expect(
      await page
        .getByRole('listitem', { name: /^Case 1/ })
        .getByRole('heading', { level: 3 })
        .textContent(),
    ).toBe('Case 1 failed');
    const unscored = judgeRow(1);
    expect(await unscored.locator('td').nth(1).locator('.badge').textContent()).toBe('failed');
    expect(await unscored.locator('.score').count()).toBe(0);
    expect(await unscored.locator('td').nth(2).textContent()).toContain('answered without a score from 0 to 1: "It is fine I guess"');
    await unscored.getByText('The judge’s prompt and answer').click();
    expect(await unscored.locator('details.judge pre').nth(1).textContent()).toBe('It is fine I guess');

    await expectAccessible(page);
    await screenshot(page, 'eval-report-rubric');
    expect(faults).toEqual([]);
  } finally {
    await close();
  }
});
