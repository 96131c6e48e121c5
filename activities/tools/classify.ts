// Who runs each tool call of a model step. A custom tool (the bundle's `customTools`, not shadowed by a
// built-in tool) is run by the client: its input is checked against the tool's `parameters` first, and
// input that does not match goes back to the model as an error, so a client is only asked with valid
// input. Everything else the service runs; a remote MCP server's tool is checked the same way first. The check runs in a thread with a time budget: the schema
// is the tenant's, the worker everyone's. Worked out in the step's activity, from the bundle, so the
// turn workflow decides from the step's recorded result (deterministic on replay).
import type { Bundle } from '../../contract/bundle.ts';
import type { LoadableSkill } from '../../lib/skills.ts';
import type { ToolCall } from '../../core/turn-types.ts';
import { ASK_MY_USER } from '../../lib/ask-my-user.ts';
import { findBuiltinTool } from './builtin.ts';
import { isRemoteTool } from './remote.ts';
import type { BuiltinTool } from './types.ts';
import type { SchemaChecks } from './schema-checks.ts';

/** As many schema errors as a model is told for one call. */
const MAX_REPORTED = 5;

export async function classifyToolCalls(
  checks: SchemaChecks,
  bundle: Pick<Bundle, 'mcps' | 'customTools'>,
  skills: readonly LoadableSkill[],
  calls: readonly ToolCall[],
  remote: readonly BuiltinTool[] = [],
): Promise<ToolCall[]> {
  return Promise.all(
    calls.map(async (call): Promise<ToolCall> => {
      const builtin = call.toolName === ASK_MY_USER ? undefined : findBuiltinTool(bundle, call.toolName, skills, remote);
      // A built-in tool checks its own input (activities/tools/define.ts), against a schema of ours.
      if (call.toolName === ASK_MY_USER || (builtin && !isRemoteTool(builtin))) return call;
      const custom = builtin ? undefined : bundle.customTools.find((tool) => tool.id === call.toolName);
      const schema = builtin?.inputSchema ?? custom?.parameters;
      if (!schema) return call;
      // A tenant's (or a remote server's) schema: checked off the event loop, within SCHEMA_CHECK_TIMEOUT_MS (schema-checks.ts).
      const verdict = await checks.check(schema, call.input, 'the input');
      if (verdict.valid) return custom ? { ...call, executor: 'client' } : call;
      const problem =
        'unusable' in verdict
          ? `The input could not be checked: ${verdict.unusable}.`
          : `Invalid input: ${verdict.errors.slice(0, MAX_REPORTED).join('; ') || 'it does not match the input schema'}.`;
      return { ...call, inputError: problem };
    }),
  );
}
