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
import { startAgentStack } from './agent-stack.ts';
import { CALLER, deployAgentCallPair, requestOf } from './agent-call-pair.ts';
import { summarize } from './measure.ts';

const RUNS = 30;
const WARMUP = 3;

const agentCalls: Benchmark = {
  name: 'agent-calls',
  description: `a call of another agent against the child's own turn and a built-in tool's call; ${RUNS} sequential runs each`,
  needs: ['postgres', 'temporal'],
  async run({ infra, log }) {
    const stack = await startAgentStack(infra, log, { fake: { defaultScript: { text: 'done' } } });
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const { caller, child, calls } = await deployAgentCallPair(stack);
      const samples = {
        callGap: [] as number[],
        directSend: [] as number[],
        builtinGap: [] as number[],
        overhead: [] as number[],
        callerReply: [] as number[],
      };
      for (let run = -WARMUP; run < RUNS; run++) {
        calls('agent');
        const from = stack.fake.requests.length;
        const sentAt = Date.now();
        await stack.send(agent, await stack.newSession(caller), 'go');
        const first = await requestOf(stack, from, CALLER);
        const second = await requestOf(stack, from, CALLER, 2);
        const direct = (await stack.send(agent, await stack.newSession(child), 'help')).ms;
        calls('builtin');
        const builtinFrom = stack.fake.requests.length;
        await stack.send(agent, await stack.newSession(caller), 'go');
        const builtinGap = (await requestOf(stack, builtinFrom, CALLER, 2)) - (await requestOf(stack, builtinFrom, CALLER));
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
