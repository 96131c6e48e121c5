// The tools a registered MCP server offers now, listed as its owner: what a deploy freezes into the
// revision and what GET /mcp/<id> shows. One connection, closed after the listing.
import type { ToolServerTool } from '../../contract/tool-servers.ts';
import type { Config } from '../../lib/config.ts';
import type { MasterKey } from '../../lib/master-key.ts';
import { mcpErrorText } from '../../lib/mcp/error-text.ts';
import { openRegisteredServer, type RegisteredServer } from '../../lib/mcp/open.ts';
import { listRemoteTools } from '../../lib/mcp/tools.ts';
import { createOutboundClient } from '../../lib/outbound.ts';
import type { Db } from '../../store/db.ts';
import { openSecrets } from '../../store/secrets.ts';

export type ListedTools = { tools: ToolServerTool[] } | { error: string };

export function registeredToolsReader(deps: { db: Db; config: Config; masterKeys: readonly MasterKey[] }) {
  const outbound = createOutboundClient({ allowCidrs: deps.config.outbound.allowCidrs });
  const limits = deps.config.mcp;

  /** The server's tools, or why they could not be listed (a sentence naming the server, never an address it resolved). */
  return async function registeredTools(userId: string, server: RegisteredServer): Promise<ListedTools> {
    let opened;
    try {
      opened = await openRegisteredServer(server, (names) => openSecrets(deps.db, deps.masterKeys, userId, names), {
        fetch: outbound.fetch,
        connectTimeoutMs: limits.connectTimeoutMs,
        maxResponseBytes: limits.resultMaxBytes,
      });
    } catch (error) {
      return { error: `the MCP server "${server.id}" (${server.url}) could not be reached: ${mcpErrorText(error)}` };
    }
    const { client, mask } = opened;
    try {
      // A description echoing a header secret would be frozen into the revision and sent to the model.
      const tools = await listRemoteTools(client, limits.connectTimeoutMs);
      return { tools: tools.map((tool) => ({ ...tool, description: mask(tool.description) })) };
    } catch (error) {
      return { error: `the tools of the MCP server "${server.id}" could not be listed: ${mask(mcpErrorText(error))}` };
    } finally {
      await client.close().catch(() => undefined);
    }
  };
}
