// Tools the service knows: built-in tool servers, and the tool set declared to the model.
export { allRunByService, builtinTools, findBuiltinTool } from './builtin.ts';
export { modelToolSet } from './tool-set.ts';
export { toolInputProblem } from './validate-input.ts';
export type { AgentToolServices, BuiltinTool, ToolContext, ToolOutcome } from './types.ts';
