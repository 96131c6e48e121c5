// Signing in, and the approvals inbox against the real service: a question asked by an agent's turn
// waits in the inbox, is answered there with a note, and the turn resumes with that answer.
import { expect } from 'vitest';
import { agentTest } from '../helpers/harness/fixtures.ts';
import { askInTurn } from '../helpers/harness/ask-in-turn.ts';
import { browserForTests, expectAccessible, openPage, screenshot, signIn } from './browser.ts';

const test = agentTest();
const browser = browserForTests();

test('sign-in refuses a wrong key with the problem and its trace id, keeps a good one for the tab only, and signs out', async ({ env }) => {
  const { page, faults, close } = await openPage(browser());
  try {
    await page.goto(`${env.api.url}/app/`);
    await expectAccessible(page);
    await screenshot(page, 'sign-in');
    await page.getByLabel('API key').fill('sk_not_a_real_key');
    await page.getByRole('button', { name: 'Sign in' }).click();
    const alert = page.getByRole('alert');
    await expect.poll(() => alert.textContent()).toMatch(/Trace id: [0-9a-f]{32}/);

    await page.getByLabel('API key').fill(env.user.apiKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
    expect(page.url()).not.toContain(env.user.apiKey);
    expect(await page.evaluate('document.cookie')).toBe('');
    expect(await page.evaluate<string[]>('Object.values(sessionStorage)')).toContain(env.user.apiKey);

    // A reload keeps the person signed in (same tab); signing out forgets the key.
    await page.reload();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('API key').waitFor();
    expect(await page.evaluate<string[]>('Object.values(sessionStorage)')).not.toContain(env.user.apiKey);
    expect(faults).toEqual([]);
  } finally {
    await close();
  }
});

test('a question asked in a turn is answered from the inbox with a note, and the turn resumes', async ({ env }) => {
  const { sessionId, requested } = await askInTurn(env, {
    input: { question: 'Ship release 4.2 today?', options: ['ship', 'wait'] },
    reply: 'Shipping now.',
  });
  const { page, faults, close } = await openPage(browser());
  try {
    await signIn(page, env.api.url, env.user.apiKey, '/app/approvals');
    const card = page.getByRole('article', { name: 'Ship release 4.2 today?' });
    await card.waitFor();
    await expect.poll(() => card.textContent()).toMatch(/left/);
    await expect.poll(() => card.textContent()).toContain(sessionId);
    await expectAccessible(page);
    await screenshot(page, 'approvals-waiting');

    await card.getByLabel('Note (optional)').fill('QA signed off');
    await card.getByRole('button', { name: 'ship' }).click();
    await card.waitFor({ state: 'detached' });
    const history = page.getByRole('row', { name: /Ship release 4\.2 today\?/ });
    await expect.poll(() => history.textContent()).toContain('QA signed off');
    await screenshot(page, 'approvals-answered');

    // The session shows the answer and the reply of the resumed turn.
    await history.getByRole('link', { name: 'session' }).click();
    await page.getByRole('listitem', { name: 'Agent reply' }).filter({ hasText: 'Shipping now.' }).waitFor();
    expect(await page.getByRole('listitem', { name: 'Question to you' }).textContent()).toContain('Answered ship — QA signed off');
    await screenshot(page, 'session-after-approval');

    const events = await env.waitForEvents(sessionId, (all) => all.some((event) => event.type === 'turn.completed'));
    const answered = events.find((event) => event.type === 'approval.answered');
    expect(answered).toMatchObject({ approvalId: requested.approvalId, choice: 'ship', note: 'QA signed off' });
    const reply = events.filter((event) => event.type === 'message.completed').at(-1);
    expect(JSON.stringify(reply)).toContain('Shipping now.');
    expect(faults).toEqual([]);
  } finally {
    await close();
  }
});

test('with nothing asked, the inbox says how questions arrive', async ({ env }) => {
  const { page, close } = await openPage(browser());
  try {
    // A user of its own, with no approvals at all.
    const { createTestUser } = await import('../helpers/harness/users.ts');
    const fresh = await createTestUser(env.api.db);
    await signIn(page, env.api.url, fresh.apiKey, '/app/approvals');
    await page.getByText('No question is waiting for an answer.').waitFor();
    await expect.poll(() => page.textContent('main')).toContain('ask_my_user');
    await expectAccessible(page);
    await screenshot(page, 'approvals-empty');
  } finally {
    await close();
  }
});

test('the inbox works from the keyboard alone: sign in, reach the question, answer it', async ({ env }) => {
  const { sessionId } = await askInTurn(env, { input: { question: 'Rotate the staging keys?', options: ['rotate', 'skip'] } });
  const { page, close } = await openPage(browser());
  try {
    await page.goto(`${env.api.url}/app/approvals`);
    await page.keyboard.press('Tab');
    await page.keyboard.type(env.user.apiKey);
    await page.keyboard.press('Enter');
    const card = page.getByRole('article', { name: 'Rotate the staging keys?' });
    await card.waitFor();
    // Tab through the page until the note field of this question has the focus, type, then on to its first option.
    const note = card.getByLabel('Note (optional)');
    for (let presses = 0; presses < 40 && !(await note.evaluate((element) => element === element.ownerDocument.activeElement)); presses++) {
      await page.keyboard.press('Tab');
    }
    await page.keyboard.type('by keyboard');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await card.waitFor({ state: 'detached' });
    const events = await env.waitForEvents(sessionId, (all) => all.some((event) => event.type === 'approval.answered'));
    expect(events.find((event) => event.type === 'approval.answered')).toMatchObject({ choice: 'rotate', note: 'by keyboard' });
  } finally {
    await close();
  }
});
