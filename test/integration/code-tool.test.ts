// The `code` tool server over HTTP with the fake model: a script that never ends is stopped at its
// time limit and its turn completes with the tool error the model reads, while another user's turn on
// the same worker runs to its end meanwhile (the script runs on a thread of its own, not on the
// worker's event loop); a script reads the agent's workspace and its result reaches the next model request.
import { describe, expect } from 'vitest';
import { agentTest } from '../helpers/harness/fixtures.ts';
import { call } from '../helpers/client/request.ts';
import { lastUserText, messageText } from '../helpers/fakes/fake-model.ts';
import { sessionAs } from '../helpers/harness/sessions-as.ts';
import { createTestUser, type TestUser } from '../helpers/harness/users.ts';
import type { AgentEnv } from '../helpers/harness/agent-env.ts';
import type { SessionEvent } from '../../contract/events.ts';

const test = agentTest();

function say(env: AgentEnv, who: TestUser, sessionId: string, text: string) {
  return call<{ reply?: string; status: string }>(`${env.api.url}/session/${sessionId}`, {
    headers: who.auth,
    json: { parts: [{ type: 'text', text }] },
  });
}

const toolResults = (events: SessionEvent[]) => events.filter((event) => event.type === 'tool.result');

describe('code', () => {
  test("an endless script ends in a time-limit tool error and its turn completes; another user's turn completes meanwhile", async ({
    env,
  }) => {
    const looping = await env.newSession({ mcps: ['code'] });
    const neighbour = await createTestUser(env.api.db);
    const neighbourSession = await sessionAs(env, neighbour);
    env.fake.setHandler((request) => {
      if (request.body.messages.at(-1)?.role === 'tool') return { text: 'The script was stopped.' };
      if (lastUserText(request) === 'loop forever') {
        return { toolCalls: [{ id: 'call_loop', name: 'run_javascript', arguments: { code: 'let n = 0;\nwhile (true) { n++ }' } }] };
      }
      return { text: 'Hello, neighbour.' };
    });
    try {
      const loopTurn = say(env, env.user, looping, 'loop forever');
      await env.waitForEvents(looping, (events) => events.some((event) => event.type === 'tool.call'));

      expect((await say(env, neighbour, neighbourSession, 'hi')).body).toMatchObject({ status: 'completed', reply: 'Hello, neighbour.' });
      // The neighbour's whole turn ran while the script was still running.
      expect(toolResults(await env.events(looping))).toEqual([]);

      expect((await loopTurn).body).toMatchObject({ status: 'completed', reply: 'The script was stopped.' });
      const [result] = toolResults(await env.events(looping));
      expect(result).toMatchObject({
        toolCallId: 'call_loop',
        toolName: 'run_javascript',
        isError: true,
        output: 'The script ran past the time limit of 5 s and was stopped.',
      });
      const read = env.fake.requests.find((request) => request.body.messages.some((message) => message.tool_call_id === 'call_loop'));
      const toolMessage = read!.body.messages.find((message) => message.tool_call_id === 'call_loop');
      expect(messageText(toolMessage)).toContain('time limit of 5 s');
    } finally {
      env.fake.setHandler(undefined);
    }
  });

  test('a script reads a workspace file and the value it computes reaches the next model request', async ({ env }) => {
    const sessionId = await env.newSession({
      mcps: ['code'],
      workspaceFiles: { 'data/orders.csv': 'id,amount\n1,10.50\n2,31.50\n3,-0\n' },
    });
    const code = [
      "const rows = workspace.read('data/orders.csv').trim().split('\\n').slice(1);",
      "console.log(rows.length + ' orders');",
      "({ total: rows.reduce((sum, row) => sum + Number(row.split(',')[1]), 0) })",
    ].join('\n');
    env.fake.enqueue({ toolCalls: [{ id: 'call_sum', name: 'run_javascript', arguments: { code } }] }, { text: 'The total is 42.' });
    const before = env.fake.requests.length;

    expect((await say(env, env.user, sessionId, 'What do my orders add up to?')).body).toMatchObject({
      status: 'completed',
      reply: 'The total is 42.',
    });
    const [result] = toolResults(await env.events(sessionId));
    expect(result).toMatchObject({ toolName: 'run_javascript', output: { stdout: '3 orders\n', result: { total: 42 } } });
    expect(result).not.toHaveProperty('isError');
    const toolMessage = env.fake.requests[before + 1]!.body.messages.find((message) => message.tool_call_id === 'call_sum');
    expect(JSON.parse(messageText(toolMessage)!)).toEqual({ stdout: '3 orders\n', result: { total: 42 } });
  });
});
