// One wrapper for every built-in tool: the input is checked against the schema first, and whatever
// goes wrong becomes an error output the model reads, because a built-in tool is deterministic and
// a retried activity would fail the same way. A tool's name, description and schema come from the
// published list of tool servers (contract/tool-servers.ts); only what it does is written here.
import { toolServer, type ToolServerId } from '../../contract/tool-servers.ts';
import type { BuiltinTool, ToolContext, ToolOutcome } from './types.ts';
import { toolInputProblem } from './validate-input.ts';

/** Runs only with input that matched the tool's `inputSchema`. */
export type ToolRun<INPUT> = (input: INPUT, context: ToolContext) => ToolOutcome | Promise<ToolOutcome>;

export function defineBuiltinTool<INPUT>(serverId: ToolServerId, name: string, run: ToolRun<INPUT>): BuiltinTool {
  const declared = toolServer(serverId)?.tools.find((tool) => tool.name === name);
  if (!declared) throw new Error(`The tool server "${serverId}" declares no tool "${name}" (contract/tool-servers.ts)`);
  return {
    ...declared,
    async execute(input, context) {
      const problem = toolInputProblem(declared.inputSchema, input);
      if (problem !== undefined) return toolError(problem);
      try {
        return await run(input as INPUT, context);
      } catch (error) {
        return toolError(`${name} failed: ${error instanceof Error ? error.message : String(error)}`);
      }
    },
  };
}

/** Errors are plain text, which the model reads as such (history sends them as `error-text`). */
export function toolError(message: string): ToolOutcome {
  return { output: message, isError: true };
}
