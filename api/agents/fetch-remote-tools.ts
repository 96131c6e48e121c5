// The tools of the remote MCP servers a bundle names, listed at deploy and frozen into the revision
// (store/agents.ts remoteTools): the model is offered the same tools for as long as the revision lives,
// and a redeploy lists them again. A server that is not registered, cannot be reached, or offers a tool
// whose name another tool of the agent already has fails the deploy, at the id's JSON pointer.
import { BUILTIN_TOOL_NAMES } from '../../contract/bundle-constants.ts';
import type { Bundle } from '../../contract/bundle.ts';
import { toolServer, type ToolServerTool } from '../../contract/tool-servers.ts';
import type { FieldError } from '../../lib/workflow-safe/errors.ts';
import { childPointer } from '../../lib/bundle/pointer.ts';
import { namedTools } from '../../lib/bundle/check-tools.ts';
import type { Db } from '../../store/db.ts';
import { getMcpServer } from '../../store/mcp-servers.ts';
import type { ListedTools, RegisteredToolsReader } from './registered-tools.ts';

export type RemoteToolListing = { ok: true; tools: Record<string, ToolServerTool[]> } | { ok: false; errors: FieldError[] };

export function remoteToolLister(deps: { db: Db }, registeredTools: RegisteredToolsReader) {
  /**
   * The tools of every remote server the bundle names, or the errors to report. Throws RateLimitedError
   * when the user's listings in flight leave no room (MCP_LISTINGS_PER_USER); `signal` ends the listings
   * (the deploy's caller hung up).
   */
  return async function listRemoteToolsOf(
    userId: string,
    bundle: Pick<Bundle, 'mcps' | 'customTools' | 'skills' | 'toolPolicies' | 'safeTools'>,
    signal?: AbortSignal,
  ): Promise<RemoteToolListing> {
    const remote = bundle.mcps.map((id, index) => ({ id, index })).filter(({ id }) => !toolServer(id));
    if (remote.length === 0) return { ok: true, tools: {} };
    const records = await Promise.all(remote.map(({ id }) => getMcpServer(deps.db, userId, id)));
    const registered = records.filter((record) => record !== undefined);
    const tools = await registeredTools(userId, registered, signal);
    const byId = new Map(registered.map((server, index) => [server.id, tools[index]!]));
    const listed = remote.map(({ id, index }) => ({ id, index, result: byId.get(id) ?? unregistered(id) }));
    const errors: FieldError[] = [];
    const frozen: Record<string, ToolServerTool[]> = {};
    // Who already has each name: the tools every agent has, the built-in servers', the custom tools.
    const owners = new Map<string, string>(BUILTIN_TOOL_NAMES.map((name) => [name, 'a tool every agent has']));
    for (const id of bundle.mcps)
      for (const tool of toolServer(id)?.tools ?? []) owners.set(tool.name, `a tool of the tool server "${id}"`);
    bundle.customTools.forEach((tool, index) => owners.set(tool.id, `the custom tool /customTools/${index}`));
    for (const { id, index, result } of listed) {
      const path = `/mcps/${index}`;
      if ('error' in result) {
        errors.push({ path, message: result.error });
        continue;
      }
      for (const tool of result.tools) {
        const owner = owners.get(tool.name);
        if (owner) errors.push({ path, message: `the MCP server "${id}" offers a tool "${tool.name}", which is already ${owner}` });
        else owners.set(tool.name, `a tool of the MCP server "${id}"`);
      }
      // A policy or a safe mark may name only a tool the server offers (built-in servers' are checked with the bundle).
      for (const field of ['toolPolicies', 'safeTools'] as const) {
        for (const [name, place] of namedTools(bundle[field]?.[id])) {
          if (name !== '*' && !result.tools.some((tool) => tool.name === name)) {
            errors.push({ path: childPointer(`/${field}`, id, place), message: `the MCP server "${id}" offers no tool "${name}"` });
          }
        }
      }
      frozen[id] = result.tools;
    }
    return errors.length > 0 ? { ok: false, errors } : { ok: true, tools: frozen };
  };
}

function unregistered(id: string): ListedTools {
  return { error: `unknown tool server "${id}": not built in, and you registered none of that id (PUT /mcp/${id})` };
}
