// Who runs each tool call of a model step. A custom tool (the bundle's `customTools`, not shadowed by a
// built-in tool) is run by the client: its input is checked against the tool's `parameters` first, and
// input that does not match goes back to the model as an error, so a client is only asked with valid
// input. Everything else the service runs. Worked out in the step's activity, from the bundle, so the
// turn workflow decides from the step's recorded result (deterministic on replay).
import type { Bundle } from '../../contract/bundle.ts';
import type { LoadableSkill } from '../../lib/skills.ts';
import type { ToolCall } from '../../workflows/turn-types.ts';
import { ASK_MY_USER } from '../../lib/ask-my-user.ts';
import { findBuiltinTool } from './builtin.ts';
import { toolInputProblem } from './validate-input.ts';

export function classifyToolCalls(
  bundle: Pick<Bundle, 'mcps' | 'customTools'>,
  skills: readonly LoadableSkill[],
  calls: readonly ToolCall[],
): ToolCall[] {
  return calls.map((call) => {
    if (call.toolName === ASK_MY_USER || findBuiltinTool(bundle, call.toolName, skills)) return call;
    const custom = bundle.customTools.find((tool) => tool.id === call.toolName);
    if (!custom) return call;
    const problem = toolInputProblem(custom.parameters, call.input);
    return problem === undefined ? { ...call, executor: 'client' } : { ...call, inputError: problem };
  });
}
