// Runs the built-in tools a model step asked for. A tool the agent does not have, or input that
// does not fit the tool, becomes an error result the model can read, not a failed turn.
import type { Bundle } from '../../lib/bundle/index.ts';
import type { ToolCall, ToolResultPart } from '../../workflows/turn-types.ts';
import { findBuiltinTool } from '../tools/index.ts';

export function toolActivities(deps: { bundleOf: (agentId: string, revision: number) => Promise<Bundle> }) {
  return {
    async runBuiltinTool(input: { sessionId: string; agentId: string; revision: number; call: ToolCall }): Promise<ToolResultPart> {
      const bundle = await deps.bundleOf(input.agentId, input.revision);
      const { toolCallId, toolName } = input.call;
      const tool = findBuiltinTool(bundle, toolName);
      if (!tool) {
        return {
          type: 'tool-result',
          toolCallId,
          toolName,
          output: { error: `This agent has no tool named "${toolName}".` },
          isError: true,
        };
      }
      const { output, isError } = await tool.execute(input.call.input, { bundle });
      return { type: 'tool-result', toolCallId, toolName, output, ...(isError ? { isError: true } : {}) };
    },
  };
}
