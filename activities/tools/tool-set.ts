// The tools declared to the model for one step: the enabled built-in tools and the bundle's custom
// tools, each with its description and JSON Schema and without `execute`, so the SDK never runs them:
// the step returns the tool calls and the turn workflow decides how each one runs (activity, client, approval).
//
// Deploy refuses a custom tool that takes the name of an enabled built-in tool. A bundle stored before
// that check may still have one: the built-in one is declared, and findBuiltinTool runs it, so what the
// model is told and what runs always agree.
import { jsonSchema, tool, type JSONSchema7, type Tool } from 'ai';
import type { Bundle } from '../../contract/bundle.ts';
import { builtinTools } from './builtin.ts';
import type { BuiltinTool } from './types.ts';
import type { LoadableSkill } from '../../lib/skills.ts';
import { loadSkillTool } from './load-skill.ts';
import { ASK_MY_USER, askMyUserDescription, askMyUserInputSchema } from '../../lib/workflow-safe/ask-my-user.ts';
import { agentToolInputSchema, agentToolName, type CallableAgent } from '../../lib/workflow-safe/agent-tools.ts';

/** `remote`: the revision's remote MCP tools (activities/tools/remote.ts), declared after the built-in ones. */
export function modelToolSet(
  bundle: Pick<Bundle, 'mcps' | 'customTools'>,
  skills: readonly LoadableSkill[] = [],
  remote: readonly BuiltinTool[] = [],
  agents: readonly CallableAgent[] = [],
): Record<string, Tool> {
  const tools: Record<string, Tool> = {
    // Every agent can ask its user; the turn runs it as an approval (workflows/turn.ts).
    [ASK_MY_USER]: tool({ description: askMyUserDescription, inputSchema: jsonSchema(askMyUserInputSchema as JSONSchema7) }),
  };
  const offered = [...(skills.length > 0 ? [loadSkillTool(skills)] : []), ...builtinTools(bundle), ...remote];
  for (const builtin of offered) {
    // A deploy refuses a remote tool whose name another tool has; the first declared is the one that runs.
    if (Object.hasOwn(tools, builtin.name)) continue;
    tools[builtin.name] = tool({ description: builtin.description, inputSchema: jsonSchema(builtin.inputSchema as JSONSchema7) });
  }
  for (const custom of bundle.customTools) {
    if (Object.hasOwn(tools, custom.id)) continue;
    tools[custom.id] = tool({ description: custom.description, inputSchema: jsonSchema(custom.parameters as JSONSchema7) });
  }
  // The agents it may call, one tool each (docs/tools.md, "Calling other agents"); run by the turn as child sessions.
  for (const agent of agents) {
    const name = agentToolName(agent.name);
    if (Object.hasOwn(tools, name)) continue;
    tools[name] = tool({ description: agent.description, inputSchema: jsonSchema(agentToolInputSchema as unknown as JSONSchema7) });
  }
  return tools;
}
