// An eval run's progress, streamed: GET /evals/<id> with Accept: text/event-stream sends each case as
// it ends and the run's summary after each change, then the end, and closes; a stream opened later sends
// every ended case at once. The SDK's progress() yields each case once and stops at the end.
import { expect } from 'vitest';
import { Client } from '../../sdk/src/index.ts';
import { createTestUser } from '../helpers/harness/users.ts';
import { agentTest } from '../helpers/harness/fixtures.ts';
import { startEval } from '../helpers/harness/evals.ts';
import { collectSse, readSse, type SseEvent } from '../helpers/client/sse-parse.ts';

const test = agentTest();
test.beforeEach(({ env }) => env.fake.reset());

const openProgress = (url: string, auth: Record<string, string>) => fetch(url, { headers: { ...auth, accept: 'text/event-stream' } });
const data = <T>(event: SseEvent) => JSON.parse(event.data) as T;

test('each case comes as it ends, the summary after it, and the end closes the stream; a later stream sends them all', async ({ env }) => {
  const { name } = await env.deploy({ instructions: 'Answer.' });
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  env.fake.enqueue({ text: 'one' }, { text: 'two', holdUntil: held });
  const id = await startEval(env, name, { cases: [{ input: 'a', expect: { equals: 'one' } }, { input: 'b' }], concurrency: 1 });

  const response = await openProgress(`${env.api.url}/evals/${id}`, env.user.auth);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
  const events = readSse(response);
  const next = async () => (await events.next()).value as SseEvent;
  // The first case ends while the second waits for its model: it comes, with the summary after it.
  const seen: SseEvent[] = [];
  while (!seen.some((event) => event.event === 'case')) seen.push(await next());
  expect(data<{ id: number; status: string }>(seen.find((event) => event.event === 'case')!)).toMatchObject({ id: 0, status: 'passed' });
  const afterFirst = await next();
  expect(afterFirst.event).toBe('run');
  expect(data<{ summary: { passed: number; pending: number } }>(afterFirst).summary).toMatchObject({ passed: 1, pending: 1 });

  release();
  const rest: SseEvent[] = [];
  for await (const event of events) {
    // The stream reads the run's status before its cases: a look that finds the last case ended while the
    // run is still marked running sends the case with a `run` summary, and the next look sends the end.
    if (event.event !== 'run') rest.push(event);
  }
  expect(rest.map((event) => event.event)).toEqual(['case', 'end']);
  expect(data<{ id: number; transcript: { reply: string } }>(rest[0]!)).toMatchObject({ id: 1, transcript: { reply: 'two' } });
  expect(data<{ status: string; summary: { passed: number } }>(rest[1]!)).toMatchObject({ status: 'completed', summary: { passed: 2 } });

  // Opened after the end: every case, then the end, at once.
  const later = await collectSse(await openProgress(`${env.api.url}/evals/${id}`, env.user.auth));
  expect(later.map((event) => [event.event, event.event === 'case' ? data<{ id: number }>(event).id : null])).toEqual([
    ['case', 0],
    ['case', 1],
    ['end', null],
  ]);

  // The SDK's progress(): each case once, then the end.
  const client = new Client({ baseUrl: env.api.url, apiKey: env.user.apiKey });
  const kinds: string[] = [];
  for await (const progress of client.evals.progress(id)) kinds.push(progress.type === 'case' ? `case ${progress.case.id}` : progress.type);
  expect(kinds).toEqual(['case 0', 'case 1', 'end']);
});

test('another user’s run is not streamed', async ({ env }) => {
  const { name } = await env.deploy({ instructions: 'Answer.' });
  env.fake.enqueue({ text: 'one' });
  const id = await startEval(env, name, { cases: [{ input: 'a' }] });
  const stranger = await createTestUser(env.api.db);
  const response = await openProgress(`${env.api.url}/evals/${id}`, stranger.auth);
  expect(response.status).toBe(404);
});
