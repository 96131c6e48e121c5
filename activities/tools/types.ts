// The shape of a tool the service runs itself. Built-in tool servers (bundle `mcps`) are lists of
// these; the model sees their name, description and input schema, and the turn runs `execute`.
import type { Bundle, JsonObject } from '../../contract/bundle.ts';

export interface ToolContext {
  bundle: Bundle;
  /** The clock, replaceable in tests. */
  now?: () => Date;
}

/** A result for the model. Failures the model can act on are outputs with `isError`, never throws. */
export interface ToolOutcome {
  output: unknown;
  isError: boolean;
}

export interface BuiltinTool {
  name: string;
  description: string;
  /** A draft-07 JSON Schema object; inputs are checked against it before `execute` runs. */
  inputSchema: JsonObject;
  execute(input: unknown, context: ToolContext): Promise<ToolOutcome>;
}
