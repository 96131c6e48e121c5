// Sessions in the dashboard against the real service and the fake model: a new session opened from
// the agent's list, a reply streaming in (seen while the model is still writing), stopped, then a
// full reply; and the live view going on after its connection is cut, with every word once.
import { expect } from 'vitest';
import { Client } from '../../sdk/src/index.ts';
import { agentTest } from '../helpers/harness/fixtures.ts';
import { startCuttingProxy } from '../sdk/cutting-proxy.ts';
import { browserForTests, expectAccessible, openPage, screenshot, signIn } from './browser.ts';

// One tenant: the prompt cache's counts are shown behind the operator's key too (docs/models.md, Caching and cost).
// The fake's model is priced (at nothing): under the usage page's budget, a model with no price is not called.
const test = agentTest({ SHARED_CACHE_COUNTS: 'true', MODEL_PRICES: 'openai-compatible:fake-model=0/0' });
const browser = browserForTests();

test('a reply streams into a new session, is stopped mid-way keeping its text, and the next one completes', async ({ env }) => {
  const { name } = await env.deploy();
  const { page, faults, close } = await openPage(browser());
  try {
    await signIn(page, env.api.url, env.user.apiKey, `/app/agents/${name}/sessions`);
    await page.getByText('No session yet.').waitFor();
    await expectAccessible(page);
    await page.getByRole('button', { name: 'New session' }).click();
    await page.getByText('No message yet.').waitFor();
    await expectAccessible(page);

    // The model writes three words, then hangs: what is on the page streamed in.
    env.fake.enqueue({ text: 'alpha beta gamma delta epsilon', stallAfterChunks: 3 });
    await page.getByLabel('Message', { exact: true }).fill('Say five words');
    await page.getByRole('button', { name: 'Send' }).click();
    const reply = page.getByRole('listitem', { name: 'Agent reply' });
    await expect.poll(() => reply.textContent()).toContain('alpha beta gamma');
    expect(await reply.textContent()).toContain('writing…');
    expect(await page.getByRole('listitem', { name: 'Your message' }).textContent()).toContain('Say five words');
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'running' }).count()).toBe(1);
    await screenshot(page, 'session-streaming');

    await page.getByRole('button', { name: 'Stop the turn' }).click();
    await page.getByText('The turn was stopped.').waitFor();
    expect(await reply.textContent()).toContain('alpha beta gamma');

    env.fake.enqueue({ text: 'All done here.' });
    await page.getByLabel('Message', { exact: true }).fill('Finish');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.getByRole('listitem', { name: 'Agent reply' }).filter({ hasText: 'All done here.' }).waitFor();
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'idle' }).count()).toBe(1);
    await expectAccessible(page);
    await screenshot(page, 'session');
    // Operators find the session's workflows in the Temporal Web UI by its search attribute.
    await page.getByRole('button', { name: /Temporal Web UI search/ }).click();
    expect(await page.evaluate<string>('navigator.clipboard.readText()')).toMatch(/^SessionId="ses_[a-z0-9]+"$/);

    await page.getByRole('link', { name }).click();
    const row = page.getByRole('row').filter({ hasText: /ses_/ });
    await expect.poll(() => row.textContent()).toContain('idle');
    await screenshot(page, 'sessions');
    expect(faults).toEqual([]);
  } finally {
    await close();
  }
});

test('cut mid-reply, the live view reconnects and shows every word once', async ({ env }) => {
  const proxy = await startCuttingProxy(env.api.url);
  const sessionId = await env.newSession();
  const words = Array.from({ length: 30 }, (_, index) => `w${index}`);
  const { page, faults, close } = await openPage(browser());
  try {
    await signIn(page, proxy.url, env.user.apiKey, `/app/sessions/${sessionId}`);
    await page.getByText('No message yet.').waitFor();
    env.fake.enqueue({ text: words.map((word) => `${word} `), chunkDelayMs: 60 });
    await new Client({ baseUrl: env.api.url, apiKey: env.user.apiKey }).sessions.sendAsync(sessionId, 'Count');
    const reply = page.getByRole('listitem', { name: 'Agent reply' });
    await expect.poll(() => reply.textContent()).toContain('w3 ');
    const before = proxy.connections;
    proxy.cutAll();
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'idle' }).count()).toBe(1);
    await expect.poll(() => reply.locator('.message-text').textContent()).toBe(words.map((word) => `${word} `).join(''));
    expect(proxy.connections).toBeGreaterThan(before);
    expect(faults).toEqual([]);
  } finally {
    await close();
    await proxy.close();
  }
});

// A 1x1 transparent PNG: a file the model provider accepts in a message.
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');

test('a message with a file; the reply regenerated; a fork; a revert; the raw event log', async ({ env }) => {
  const sessionId = await env.newSession();
  const { page, faults, close } = await openPage(browser());
  try {
    await signIn(page, env.api.url, env.user.apiKey, `/app/sessions/${sessionId}`);
    await page.getByText('No message yet.').waitFor();
    env.fake.enqueue({ text: 'A tiny image.' });
    await page.getByLabel('Message', { exact: true }).fill('What is this?');
    await page.getByLabel('Attach a file').setInputFiles({ name: 'dot.png', mimeType: 'image/png', buffer: PNG });
    await page.getByRole('button', { name: 'Send' }).click();
    await page.getByRole('listitem', { name: 'Agent reply' }).filter({ hasText: 'A tiny image.' }).waitFor();
    const asked = page.getByRole('listitem', { name: 'Your message' });
    expect(await asked.textContent()).toContain('dot.png');
    await asked.getByRole('button', { name: 'Download dot.png' }).waitFor();

    env.fake.enqueue({ text: 'A single pixel.' });
    await page.getByRole('button', { name: 'Regenerate' }).click();
    await page.getByRole('listitem', { name: 'Agent reply' }).filter({ hasText: 'A single pixel.' }).waitFor();
    await expect.poll(() => page.getByText('A tiny image.').count()).toBe(0);

    await page.getByRole('button', { name: 'Show the event log' }).click();
    const log = page.getByRole('table', { name: 'Event log' });
    await expect.poll(() => log.textContent()).toContain('messages.reverted');
    expect(await log.getByRole('row').nth(1).textContent()).toMatch(/^1session\.created/);
    await expectAccessible(page);
    await screenshot(page, 'session-events');
    await page.getByRole('button', { name: 'Show the conversation' }).click();

    await page.getByRole('button', { name: 'Fork' }).click();
    await expect.poll(() => page.url()).not.toContain(sessionId);
    await page.getByRole('listitem', { name: 'Agent reply' }).filter({ hasText: 'A single pixel.' }).waitFor();
    await page.getByText(`Forked from`).waitFor();
    await page.goBack();

    await page.getByRole('button', { name: 'Revert from here' }).click();
    await page.getByText('No message yet.').waitFor();
    expect(faults).toEqual([]);
  } finally {
    await close();
  }
});

test('the overview shows a running session and a waiting question, and drops the session once it stops', async ({ env }) => {
  const sessionId = await env.newSession();
  const client = new Client({ baseUrl: env.api.url, apiKey: env.user.apiKey });
  env.fake.enqueue({ text: 'thinking about it', stallAfterChunks: 1 });
  await client.sessions.sendAsync(sessionId, 'Think');
  const question = await client.approvals.create({ question: 'Approve the overview?', options: ['yes', 'no'] });
  const { page, faults, close } = await openPage(browser());
  try {
    await signIn(page, env.api.url, env.user.apiKey, '/app/');
    const active = page.getByRole('region', { name: /Active sessions/ });
    await active.getByRole('link', { name: sessionId }).waitFor();
    const waiting = page.getByRole('region', { name: /Waiting for you/ });
    await waiting.getByRole('link', { name: 'Approve the overview?' }).waitFor();
    await expectAccessible(page);
    await screenshot(page, 'overview');

    await client.sessions.abort(sessionId);
    await client.approvals.answer(question.id, { choice: 'yes' });
    await active.getByRole('link', { name: sessionId }).waitFor({ state: 'detached' });
    await waiting.getByText('No question waits for an answer.').waitFor();
    expect(faults).toEqual([]);
  } finally {
    await close();
  }
});

test("usage sums each agent's sessions: tokens in and out, shown as charts and a table; this month against the budgets; the limits", async ({
  env,
}) => {
  const { name } = await env.deploy();
  const client = new Client({ baseUrl: env.api.url, apiKey: env.user.apiKey });
  await client.agents.setBudget(name, 12);
  for (const text of ['one', 'two']) {
    const { id } = await client.sessions.create(name);
    // The second reply's input came in part from the provider's prompt cache.
    env.fake.enqueue({
      text: `Reply ${text}.`,
      usage: { promptTokens: 120, completionTokens: 30, ...(text === 'two' ? { cacheReadTokens: 100 } : {}) },
    });
    await client.sessions.send(id, text).done();
  }
  const { page, faults, close } = await openPage(browser());
  try {
    await signIn(page, env.api.url, env.user.apiKey, '/app/usage');
    const row = page.getByRole('row').filter({ hasText: name });
    await expect.poll(() => row.getByRole('cell').allTextContents()).toEqual([name, '2', '240', '100', '60', '$0.00', '$0.00 of $12.00']);
    await expect.poll(() => page.getByText(/^Spent by your agents:/).textContent()).toMatch(/\$0\.00 \(no budget\)/);
    const limit = page.getByRole('row').filter({ hasText: 'Unanswered approvals' });
    expect(await limit.getByRole('cell').allTextContents()).toEqual([expect.stringMatching(/^\d+$/), '1,000', 'OPEN_APPROVALS_PER_USER']);
    const chart = page.getByRole('img', { name: /Tokens per agent/ });
    expect(await chart.getAttribute('aria-label')).toContain(`${name} 300`);
    // The days' bars hold at least these two replies (the file's other tests add theirs).
    const daily = (await page.getByRole('img', { name: /Tokens per day/ }).getAttribute('aria-label'))!;
    const perDay = [...daily.matchAll(/\d{4}-\d{2}-\d{2} ([\d,]+)/g)].map((match) => Number(match[1]!.replace(/,/g, '')));
    expect(perDay).toHaveLength(14);
    expect(perDay.reduce((sum, tokens) => sum + tokens, 0)).toBeGreaterThanOrEqual(300);
    await expectAccessible(page);
    await screenshot(page, 'usage');
    expect(faults).toEqual([]);
  } finally {
    await close();
  }
});

test('a custom tool call the session waits for is answered from the page, and the turn goes on', async ({ env }) => {
  const sessionId = await env.newSession({
    customTools: [
      {
        id: 'lookup_order',
        description: 'Look up an order',
        parameters: { type: 'object', properties: { orderId: { type: 'string' } }, required: ['orderId'] },
      },
    ],
  });
  env.fake.enqueue({ toolCalls: [{ id: 'call_lookup', name: 'lookup_order', arguments: { orderId: 'A-17' } }] }, { text: 'It shipped.' });
  const { page, faults, close } = await openPage(browser());
  try {
    await signIn(page, env.api.url, env.user.apiKey, `/app/sessions/${sessionId}`);
    await page.getByLabel('Message', { exact: true }).fill('Where is A-17?');
    await page.getByRole('button', { name: 'Send' }).click();
    const result = page.getByLabel('Result of lookup_order (JSON or text)');
    await result.waitFor();
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'waiting' }).count()).toBe(1);
    await expectAccessible(page);
    await screenshot(page, 'session-tool-call');
    await result.fill('{"status": "shipped"}');
    await page.getByRole('button', { name: 'Send result' }).click();
    await page.getByRole('listitem', { name: 'Agent reply' }).filter({ hasText: 'It shipped.' }).waitFor();
    const events = await env.events(sessionId);
    expect(events.find((event) => event.type === 'tool.result')).toMatchObject({
      toolCallId: 'call_lookup',
      output: { status: 'shipped' },
    });
    expect(faults).toEqual([]);
  } finally {
    await close();
  }
});

test('an agent with more sessions than a page lists the older ones on request', async ({ env }) => {
  const { name } = await env.deploy();
  const client = new Client({ baseUrl: env.api.url, apiKey: env.user.apiKey });
  const ids: string[] = [];
  for (let count = 0; count < 53; count++) ids.push((await client.sessions.create(name)).id);
  const { page, close } = await openPage(browser());
  try {
    await signIn(page, env.api.url, env.user.apiKey, `/app/agents/${name}/sessions`);
    const rows = page.getByRole('row').filter({ hasText: /ses_/ });
    await expect.poll(() => rows.count()).toBe(50);
    await page.getByRole('button', { name: 'Show older sessions' }).click();
    await expect.poll(() => rows.count()).toBe(53);
    expect(await page.getByRole('button', { name: 'Show older sessions' }).count()).toBe(0);
    // Each session once: the older page continues the first without repeating it.
    const listed = await rows.getByRole('link').allTextContents();
    expect([...listed].sort()).toEqual([...ids].sort());
  } finally {
    await close();
  }
});
