// What calling another agent costs (docs/tools.md, "Calling other agents"), sequential runs against
// the real service with a fake model that answers at once:
//   - callGap: from the caller's first model request (which calls the child) to its second (which
//     reads the child's reply): the child session opened, its turn run, its reply returned;
//   - directSend: the child's own turn, as a waiting send to a fresh session of the child agent;
//   - builtinGap: the same gap for a call of the built-in `current_time` tool instead of an agent;
//   - overhead per run: callGap minus directSend (the goal: under 50 ms at the median);
//   - callerReplyRequest: from the caller's send to its second model request, where its reply starts.
import http from 'node:http';
import type { Benchmark } from './benchmark.ts';
import { startAgentStack, type AgentStack } from './agent-stack.ts';
import { summarize } from './measure.ts';
import { messageText, type FakeRequest } from '../test/helpers/fakes/fake-model.ts';

const RUNS = 30;
const WARMUP = 3;

const systemOf = (request: FakeRequest) => messageText(request.body.messages.find((message) => message.role === 'system')) ?? '';

/** The receipt time of the first request after `from` whose system prompt has `role` (the fake's clock is Date.now()). */
async function requestOf(stack: AgentStack, from: number, role: string, nth = 1): Promise<number> {
  for (;;) {
    const found = stack.fake.requests.slice(from).filter((request) => systemOf(request).includes(role));
    if (found.length >= nth) return found[nth - 1]!.receivedAt;
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}

const agentCalls: Benchmark = {
  name: 'agent-calls',
  description: `a call of another agent against the child's own turn and a built-in tool's call; ${RUNS} sequential runs each`,
  needs: ['postgres', 'temporal'],
  async run({ infra, log }) {
    const stack = await startAgentStack(infra, log, { fake: { defaultScript: { text: 'done' } } });
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const child = await stack.deployAgent({ instructions: 'ROLE child' });
      const caller = await stack.deployAgent({ instructions: 'ROLE caller', agents: [{ name: child }], mcps: ['time'] });
      let callTool = `agent_${child}`;
      stack.fake.setHandler((request) => {
        if (systemOf(request).includes('ROLE child')) return { text: 'child reply' };
        if (request.body.messages.at(-1)?.role === 'tool') return { text: 'caller reply' };
        const input = callTool === 'current_time' ? {} : { message: 'help' };
        return { toolCalls: [{ id: `call_${request.index}`, name: callTool, arguments: input }] };
      });
      const samples = {
        callGap: [] as number[],
        directSend: [] as number[],
        builtinGap: [] as number[],
        overhead: [] as number[],
        callerReply: [] as number[],
      };
      for (let run = -WARMUP; run < RUNS; run++) {
        callTool = `agent_${child}`;
        const from = stack.fake.requests.length;
        const sentAt = Date.now();
        await stack.send(agent, await stack.newSession(caller), 'go');
        const first = await requestOf(stack, from, 'ROLE caller');
        const second = await requestOf(stack, from, 'ROLE caller', 2);
        const direct = (await stack.send(agent, await stack.newSession(child), 'help')).ms;
        callTool = 'current_time';
        const builtinFrom = stack.fake.requests.length;
        await stack.send(agent, await stack.newSession(caller), 'go');
        const builtinGap = (await requestOf(stack, builtinFrom, 'ROLE caller', 2)) - (await requestOf(stack, builtinFrom, 'ROLE caller'));
        if (run < 0) continue;
        samples.callGap.push(second - first);
        samples.directSend.push(direct);
        samples.builtinGap.push(builtinGap);
        samples.overhead.push(second - first - direct);
        samples.callerReply.push(second - sentAt);
        if ((run + 1) % 10 === 0) log(`${run + 1}/${RUNS}`);
      }
      const overhead = summarize(samples.overhead);
      return {
        runs: RUNS,
        method:
          "sequential; times are the fake model's receipt of requests (Date.now() in this process, which also runs the API and the " +
          'worker) and the waiting send of the child agent; overhead per run is the call gap minus that run’s direct send',
        callGap: summarize(samples.callGap),
        directSend: summarize(samples.directSend),
        builtinGap: summarize(samples.builtinGap),
        overheadOverChildTurn: overhead,
        callerSendToReplyRequest: summarize(samples.callerReply),
        goal: { overheadP50UnderMs: 50, met: overhead.p50Ms < 50 },
      };
    } finally {
      agent.destroy();
      await stack.close();
    }
  },
};

export default agentCalls;
