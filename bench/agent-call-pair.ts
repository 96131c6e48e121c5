// The agents of the agent-call benchmarks (agent-calls, call-timeline): a caller whose first model step
// calls either a child agent or the built-in `current_time` tool, and the child, each told apart in the
// fake model's requests by its instructions; and when a request of either reached the fake.
import type { AgentStack } from './agent-stack.ts';
import { messageText, type FakeRequest } from '../test/helpers/fakes/fake-model.ts';

export const CALLER = 'ROLE caller';
export const CHILD = 'ROLE child';

/** A request that never comes fails the run rather than hold it: a turn here takes well under a second. */
const REQUEST_WAIT_MS = 30_000;

const systemOf = (request: FakeRequest) => messageText(request.body.messages.find((message) => message.role === 'system')) ?? '';

/** The receipt time of the `nth` request after `from` whose instructions are `role`'s (the fake's clock is Date.now()). */
export async function requestOf(stack: AgentStack, from: number, role: string, nth = 1): Promise<number> {
  const deadline = Date.now() + REQUEST_WAIT_MS;
  for (;;) {
    const found = stack.fake.requests.slice(from).filter((request) => systemOf(request).includes(role));
    if (found.length >= nth) return found[nth - 1]!.receivedAt;
    if (Date.now() > deadline) throw new Error(`no request #${nth} of "${role}" within ${REQUEST_WAIT_MS} ms`);
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}

export interface AgentCallPair {
  caller: string;
  child: string;
  /** What the caller's first step calls from now on: the child agent, or the built-in tool. */
  calls(what: 'agent' | 'builtin'): void;
}

/** Deploys the two agents and answers for them: the child at once, the caller with its call, then with a reply. */
export async function deployAgentCallPair(stack: AgentStack): Promise<AgentCallPair> {
  const child = await stack.deployAgent({ instructions: CHILD });
  const caller = await stack.deployAgent({ instructions: CALLER, agents: [{ name: child }], mcps: ['time'] });
  let callTool = `agent_${child}`;
  stack.fake.setHandler((request) => {
    if (systemOf(request).includes(CHILD)) return { text: 'child reply' };
    if (request.body.messages.at(-1)?.role === 'tool') return { text: 'caller reply' };
    const input = callTool === 'current_time' ? {} : { message: 'help' };
    return { toolCalls: [{ id: `call_${request.index}`, name: callTool, arguments: input }] };
  });
  return {
    caller,
    child,
    calls(what) {
      callTool = what === 'builtin' ? 'current_time' : `agent_${child}`;
    },
  };
}
