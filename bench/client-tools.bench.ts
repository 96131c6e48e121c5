// Two round trips a turn may make back to the model, beside the floor (a one-activity workflow on the
// same Temporal server), each timed by when the fake model receives its next request:
//   - a custom tool run by the client: from the moment POST /session/<id>/tool-result has answered 200
//     to the turn's next model request (the Update on the turn, its tool.result, the tool message, the
//     next model step); the waiting send that answered `waitingFor` is when the client saw the call;
//   - a jsonReply retry: from the model's invalid reply to its next request (the step's end, the
//     reply.invalid event and the note to the model, the next step), beside the same gap after a call
//     of a built-in tool (the step's end, the tool activity, the tool message, the next step).
// The fake model answers at once, so what is measured is the service and Temporal.
import http from 'node:http';
import type { Benchmark } from './benchmark.ts';
import { startAgentStack, TURN_TIMEOUT_MS, type AgentStack } from './agent-stack.ts';
import { startFloor } from './floor.ts';
import { expectStatus, timedRequest } from './http-json.ts';
import { summarize } from './measure.ts';

const RUNS = 20;
const WARMUP = 3;
const LOOKUP = {
  id: 'lookup_order',
  description: 'Look up an order',
  parameters: { type: 'object', properties: { orderId: { type: 'string' } }, required: ['orderId'] },
};
const JSON_REPLY = { schema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] } };

/** The receipt time of the fake's request at `index` (its clock is Date.now(), as here). */
async function requestAt(stack: AgentStack, index: number): Promise<number> {
  for (;;) {
    const request = stack.fake.requests[index];
    if (request) return request.receivedAt;
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}

async function send(stack: AgentStack, agent: http.Agent, sessionId: string, text: string) {
  return timedRequest<{ status: string; waitingFor?: { toolCalls: { toolCallId: string }[] } }>(
    agent,
    `${stack.url}/session/${sessionId}`,
    {
      method: 'POST',
      headers: stack.headers,
      body: JSON.stringify({ parts: [{ type: 'text', text }] }),
      timeoutMs: TURN_TIMEOUT_MS,
    },
  );
}

async function clientToolRun(stack: AgentStack, agent: http.Agent, agentName: string, run: number): Promise<number> {
  const sessionId = await stack.newSession(agentName);
  const toolCallId = `call_${run}`;
  stack.fake.enqueue({ toolCalls: [{ id: toolCallId, name: LOOKUP.id, arguments: { orderId: `O-${run}` } }] }, { text: 'done' });
  const first = stack.fake.requests.length;
  const waiting = expectStatus(await send(stack, agent, sessionId, 'where is my order?'), 200, 'the waiting send');
  if (waiting.status !== 'waiting') throw new Error(`expected a waiting turn, got ${JSON.stringify(waiting)}`);
  const posted = await timedRequest(agent, `${stack.url}/session/${sessionId}/tool-result`, {
    method: 'POST',
    headers: stack.headers,
    body: JSON.stringify({ toolCallId, output: { status: 'shipped' } }),
    timeoutMs: 30_000,
  });
  expectStatus(posted, 200, 'POST /session/<id>/tool-result');
  const answeredAt = Date.now();
  return (await requestAt(stack, first + 1)) - answeredAt;
}

/** The gap between a turn's first and second model requests, for a first answer scripted by `first`. */
async function secondRequestGap(stack: AgentStack, agent: http.Agent, agentName: string, firstScript: object): Promise<number> {
  const sessionId = await stack.newSession(agentName);
  stack.fake.enqueue(firstScript, { text: '{"ok": true}' });
  const first = stack.fake.requests.length;
  const answer = expectStatus(await send(stack, agent, sessionId, 'go'), 200, 'the waiting send');
  if (answer.status !== 'completed') throw new Error(`the turn ended ${JSON.stringify(answer)}`);
  return (await requestAt(stack, first + 1)) - (await requestAt(stack, first));
}

const ratio = (a: number, b: number) => Math.round((a / b) * 100) / 100;

const clientTools: Benchmark = {
  name: 'client-tools',
  description: `custom tool result posted → next model request, and a jsonReply retry gap, beside the floor; ${RUNS} sequential runs each`,
  needs: ['postgres', 'temporal'],
  async run({ infra, log }) {
    const stack = await startAgentStack(infra, log, { fake: { defaultScript: { text: 'done' } } });
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const floor = await startFloor(stack.temporal);
    try {
      const withTool = await stack.deployAgent({ customTools: [LOOKUP] });
      const withReply = await stack.deployAgent({ jsonReply: JSON_REPLY, mcps: ['time'] });
      const samples = { clientTool: [] as number[], replyRetry: [] as number[], builtinTool: [] as number[], floor: [] as number[] };
      for (let run = -WARMUP; run < RUNS; run++) {
        const clientTool = await clientToolRun(stack, agent, withTool, run);
        const replyRetry = await secondRequestGap(stack, agent, withReply, { text: 'not json' });
        const builtinTool = await secondRequestGap(stack, agent, withReply, {
          toolCalls: [{ id: 't', name: 'current_time', arguments: {} }],
        });
        const at = performance.now();
        await floor.run();
        const floorMs = performance.now() - at;
        if (run < 0) continue;
        samples.clientTool.push(clientTool);
        samples.replyRetry.push(replyRetry);
        samples.builtinTool.push(builtinTool);
        samples.floor.push(floorMs);
        if ((run + 1) % 10 === 0) log(`${run + 1}/${RUNS}`);
      }
      const floorLatency = summarize(samples.floor);
      const clientTool = summarize(samples.clientTool);
      const replyRetry = summarize(samples.replyRetry);
      const builtinTool = summarize(samples.builtinTool);
      return {
        runs: RUNS,
        method:
          'sequential, each kind in turn per run; times are the fake model receiving the next request (Date.now() in this ' +
          'process, which also runs the API and the worker) minus the 200 of the tool result, or minus the first request',
        clientToolResultToNextModelRequest: clientTool,
        jsonReplyRetryGap: replyRetry,
        builtinToolGap: builtinTool,
        floor: { workflow: 'one no-op activity, started and awaited', ...floorLatency },
        ratios: {
          clientToolP50VsFloor: ratio(clientTool.p50Ms, floorLatency.p50Ms),
          replyRetryP50VsFloor: ratio(replyRetry.p50Ms, floorLatency.p50Ms),
          replyRetryP50VsBuiltinTool: ratio(replyRetry.p50Ms, builtinTool.p50Ms),
        },
      };
    } finally {
      await floor.stop();
      agent.destroy();
      await stack.close();
    }
  },
};

export default clientTools;
