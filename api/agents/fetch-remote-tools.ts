// The tools of the remote MCP servers a bundle names, listed at deploy and frozen into the revision
// (store/agents.ts remoteTools): the model is offered the same tools for as long as the revision lives,
// and a redeploy lists them again. A server that is not registered, cannot be reached, or offers a tool
// whose name another tool of the agent already has fails the deploy, at the id's JSON pointer.
import { BUILTIN_TOOL_NAMES } from '../../contract/bundle-constants.ts';
import type { Bundle } from '../../contract/bundle.ts';
import { toolServer, type ToolServerTool } from '../../contract/tool-servers.ts';
import type { FieldError } from '../../lib/errors.ts';
import { childPointer } from '../../lib/bundle/pointer.ts';
import type { Db } from '../../store/db.ts';
import { getMcpServer } from '../../store/mcp-servers.ts';
import { registeredToolsReader, type ListedTools } from './registered-tools.ts';
import type { Config } from '../../lib/config.ts';
import type { MasterKey } from '../../lib/master-key.ts';

export type RemoteToolListing = { ok: true; tools: Record<string, ToolServerTool[]> } | { ok: false; errors: FieldError[] };

export function remoteToolLister(deps: { db: Db; config: Config; masterKeys: readonly MasterKey[] }) {
  const registeredTools = registeredToolsReader(deps);

  /** The tools of the registered server `id`, or why they could not be listed. */
  async function listOne(userId: string, id: string): Promise<ListedTools> {
    const server = await getMcpServer(deps.db, userId, id);
    if (!server) return { error: `unknown tool server "${id}": not built in, and you registered none of that id (PUT /mcp/${id})` };
    return registeredTools(userId, server);
  }

  return async function listRemoteToolsOf(
    userId: string,
    bundle: Pick<Bundle, 'mcps' | 'customTools' | 'skills' | 'toolPolicies'>,
  ): Promise<RemoteToolListing> {
    const remote = bundle.mcps.map((id, index) => ({ id, index })).filter(({ id }) => !toolServer(id));
    if (remote.length === 0) return { ok: true, tools: {} };
    const listed = await Promise.all(remote.map(async ({ id, index }) => ({ id, index, result: await listOne(userId, id) })));
    const errors: FieldError[] = [];
    const tools: Record<string, ToolServerTool[]> = {};
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
      // A policy may name only a tool the server offers (built-in servers' are checked with the bundle).
      for (const name of Object.keys(bundle.toolPolicies?.[id] ?? {})) {
        if (name !== '*' && !result.tools.some((tool) => tool.name === name)) {
          errors.push({ path: childPointer('/toolPolicies', id, name), message: `the MCP server "${id}" offers no tool "${name}"` });
        }
      }
      tools[id] = result.tools;
    }
    return errors.length > 0 ? { ok: false, errors } : { ok: true, tools };
  };
}
