// One wrapper for every built-in tool: the input is checked against the schema first, and whatever
// goes wrong becomes an error output the model reads, because a built-in tool is deterministic and
// a retried activity would fail the same way.
import type { JsonObject } from '../../contract/bundle.ts';
import type { BuiltinTool, ToolContext, ToolOutcome } from './types.ts';
import { toolInputProblem } from './validate-input.ts';

export interface BuiltinToolSpec<INPUT> {
  name: string;
  description: string;
  inputSchema: JsonObject;
  /** Runs only with input that matched `inputSchema`. */
  run(input: INPUT, context: ToolContext): ToolOutcome | Promise<ToolOutcome>;
}

export function defineBuiltinTool<INPUT>(spec: BuiltinToolSpec<INPUT>): BuiltinTool {
  return {
    name: spec.name,
    description: spec.description,
    inputSchema: spec.inputSchema,
    async execute(input, context) {
      const problem = toolInputProblem(spec.inputSchema, input);
      if (problem !== undefined) return toolError(problem);
      try {
        return await spec.run(input as INPUT, context);
      } catch (error) {
        return toolError(`${spec.name} failed: ${error instanceof Error ? error.message : String(error)}`);
      }
    },
  };
}

/** Errors are plain text, which the model reads as such (history sends them as `error-text`). */
export function toolError(message: string): ToolOutcome {
  return { output: message, isError: true };
}
