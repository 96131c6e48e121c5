// An eval's report in the dashboard against the real service (fake model): a recorded session replayed
// against a staged revision, reached from the agent page's list of runs; the case's failing check with
// its explanation, and the candidate's transcript beside the recorded one: each reply, and each tool
// call marked replayed (answered from the recording) or unmatched (no recorded call left to answer it).
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
