// The agents a bundle may call (`agents`), checked where no other agent needs reading: names given
// twice, the agent calling itself, a name too long for its tool, a custom tool with an agent tool's
// name. Whether each agent exists, its revision too, and whether a chain of calls leads back here are
// checked by the deploy, which reads the user's agents (api/agents/callable-agents.ts).
import { agentToolName, MAX_CALLABLE_AGENT_NAME } from '../workflow-safe/agent-tools.ts';
import { childPointer } from './pointer.ts';
import { isRecord, type Json, type Report } from './report.ts';

export function checkAgents(bundle: Json, report: Report): void {
  if (!Array.isArray(bundle.agents) || !report.clean('/agents')) return;
  const seen = new Set<string>();
  const customToolIds = new Set(
    (Array.isArray(bundle.customTools) ? bundle.customTools : []).flatMap((tool) =>
      isRecord(tool) && typeof tool.id === 'string' ? [tool.id] : [],
    ),
  );
  bundle.agents.forEach((entry, index) => {
    const path = childPointer('/agents', index, 'name');
    const name = isRecord(entry) ? report.string(entry.name, path) : undefined;
    if (name === undefined) return;
    if (seen.has(name)) report.error(path, `the agent "${name}" is listed twice`);
    seen.add(name);
    if (name === bundle.name) report.error(path, 'an agent cannot call itself');
    if (name.length > MAX_CALLABLE_AGENT_NAME)
      report.error(
        path,
        `a callable agent's name has at most ${MAX_CALLABLE_AGENT_NAME} characters (its tool is "${agentToolName('')}<name>")`,
      );
    if (customToolIds.has(agentToolName(name)))
      report.error(path, `a custom tool is named "${agentToolName(name)}", the tool through which this agent is called`);
  });
}
