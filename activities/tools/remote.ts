// The tools of remote MCP servers, as a revision froze them at deploy (store/agents.ts remoteTools): the
// model is declared each one like a built-in tool, and running one calls its server as the agent's user
// registered it (activities/turn/remote-calls.ts). Input is checked against the server's schema before
// (activities/tools/classify.ts, in the schema-check thread: the schema is a stranger's); the server
// checks it again, and says so as a tool error.
import type { ToolServerTool } from '../../contract/tool-servers.ts';
import type { BuiltinTool } from './types.ts';

/** A remote tool: what it runs is its server's, named here. */
export interface RemoteTool extends BuiltinTool {
  serverId: string;
}

export function remoteTools(frozen: Readonly<Record<string, readonly ToolServerTool[]>>): RemoteTool[] {
  return Object.entries(frozen).flatMap(([serverId, tools]) =>
    tools.map((tool): RemoteTool => ({
      ...tool,
      serverId,
      async execute(input, context) {
        const remote = context.agent?.remote;
        if (!remote) throw new Error('a remote tool needs the agent it runs for');
        return remote.call(serverId, tool.name, input, context.idempotencyKey);
      },
    })),
  );
}

export function isRemoteTool(tool: BuiltinTool): tool is RemoteTool {
  return 'serverId' in tool;
}
