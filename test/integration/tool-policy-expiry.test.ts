// An `ask` policy's approval that nobody answers: at its expiry the model reads that the tool did not
// run, and the turn completes. Its own file: the short default expiry would end every other test's
// approvals too.
import { expect } from 'vitest';
import { agentTest } from '../helpers/harness/fixtures.ts';
import { call } from '../helpers/client/request.ts';

const test = agentTest({ APPROVAL_DEFAULT_EXPIRY_MS: '2000' });

test('an unanswered approval expires: the tool is not run and the model is told nobody answered', async ({ env }) => {
  const sessionId = await env.newSession({ mcps: ['time'], toolPolicies: { time: { current_time: 'ask' } } });
  env.fake.enqueue({ toolCalls: [{ id: 'call_t', name: 'current_time', arguments: {} }] }, { text: 'Nobody said yes.' });
  const sent = await call(`${env.api.url}/session/${sessionId}?async=1`, {
    headers: env.user.auth,
    json: { parts: [{ type: 'text', text: 'time?' }] },
  });
  expect(sent.status).toBe(202);
  const events = await env.waitForEvents(sessionId, (all) => all.some((event) => event.type === 'turn.completed'), 30_000);
  expect(events.map((event) => event.type)).toEqual(expect.arrayContaining(['approval.requested', 'approval.expired']));
  const result = events.find((event) => event.type === 'tool.result');
  expect(result).toMatchObject({
    toolName: 'current_time',
    isError: true,
    output: expect.stringMatching(/did not answer the approval of this call of "current_time" before it expired\. The tool was not run/),
  });
});
