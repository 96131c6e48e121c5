// The tools registered MCP servers offer now, listed as their owner: what a deploy freezes into the
// revision and what GET /mcp/<id> shows. One connection per server, closed after its listing. A listing
// is bounded as a whole (MCP_LIST_TIMEOUT_MS: connecting and every page), ends when its HTTP caller
// hangs up, and takes one of its user's places (MCP_LISTINGS_PER_USER, api/agents/listing-slots.ts).
import type { ToolServerTool } from '../../contract/tool-servers.ts';
import type { Config } from '../../lib/config.ts';
import type { MasterKey } from '../../lib/master-key.ts';
import { mcpErrorText } from '../../lib/mcp/error-text.ts';
import { openRegisteredServer, type OpenedServer, type RegisteredServer } from '../../lib/mcp/open.ts';
import { listRemoteTools } from '../../lib/mcp/tools.ts';
import { redactedMcpUrl, urlCredentialMasker } from '../../lib/mcp/url-redaction.ts';
import { createOutboundClient } from '../../lib/outbound.ts';
import type { Db } from '../../store/db.ts';
import { openSecrets } from '../../store/secrets.ts';
import { connectionAccess } from '../../store/mcp-connections.ts';
import { bearerSource } from '../../lib/mcp/oauth/bearer.ts';
import { McpSignInNeededError } from '../../lib/mcp/oauth/errors.ts';
import { oauthFetch } from '../../lib/mcp/oauth/fetch.ts';
import { createListingSlots } from './listing-slots.ts';

/** `signInNeeded`: the server is signed in to with OAuth and its user has not (or must again). */
export type ListedTools = { tools: ToolServerTool[] } | { error: string; signInNeeded?: true };

/**
 * The tools of each server, in order, or why they could not be listed (a sentence naming the server,
 * its URL redacted, never an address it resolved). Takes as many of the user's places as it lists at
 * once (all its servers, at most MCP_LISTINGS_PER_USER), or throws RateLimitedError before listing any.
 */
export type RegisteredToolsReader = (userId: string, servers: readonly RegisteredServer[], signal?: AbortSignal) => Promise<ListedTools[]>;

type ReaderDeps = { db: Db; config: Config; masterKeys: readonly MasterKey[] };

/** One per API process (api/app.ts), shared by deploys and GET /mcp/<id>: they count against the same places. */
export function registeredToolsReader(deps: ReaderDeps): RegisteredToolsReader {
  const outbound = createOutboundClient({ allowCidrs: deps.config.outbound.allowCidrs });
  const limits = deps.config.mcp;
  const slots = createListingSlots(limits.listingsPerUser);

  async function listOne(userId: string, server: RegisteredServer, caller: AbortSignal | undefined): Promise<ListedTools> {
    const deadline = AbortSignal.timeout(limits.listTimeoutMs);
    const signal = caller ? AbortSignal.any([deadline, caller]) : deadline;
    // Whatever failed once the listing was ended, the end is the reason.
    const ended = (): ListedTools | undefined => {
      if (caller?.aborted) return { error: `the listing of the MCP server "${server.id}" was given up: its caller went away` };
      if (deadline.aborted) {
        return { error: `the MCP server "${server.id}" did not list its tools within ${limits.listTimeoutMs} ms (MCP_LIST_TIMEOUT_MS)` };
      }
      return undefined;
    };
    let opened: OpenedServer;
    const bearer =
      server.auth?.type === 'oauth'
        ? bearerSource(
            connectionAccess(deps.db, deps.masterKeys, userId, server.id),
            server,
            oauthFetch(outbound.fetch, limits.connectTimeoutMs, signal),
          )
        : undefined;
    try {
      opened = await openRegisteredServer(
        server,
        (names) => openSecrets(deps.db, deps.masterKeys, userId, names),
        { fetch: outbound.fetch, connectTimeoutMs: limits.connectTimeoutMs, maxResponseBytes: limits.resultMaxBytes, signal },
        bearer,
      );
    } catch (error) {
      if (error instanceof McpSignInNeededError) return ended() ?? { error: error.message, signInNeeded: true };
      const text = urlCredentialMasker(server.url)(mcpErrorText(error));
      return ended() ?? { error: `the MCP server "${server.id}" (${redactedMcpUrl(server.url)}) could not be reached: ${text}` };
    }
    const { client, mask, credentials } = opened;
    try {
      // A list quoting a header secret is refused: nothing of it is frozen, shown or sent to a model.
      return { tools: await listRemoteTools(client, { signal, timeoutMs: limits.listTimeoutMs, secrets: credentials }) };
    } catch (error) {
      return ended() ?? { error: `the tools of the MCP server "${server.id}" could not be listed: ${mask(mcpErrorText(error))}` };
    } finally {
      await client.close().catch(() => undefined);
    }
  }

  const reader: RegisteredToolsReader = async (userId, servers, signal) => {
    if (servers.length === 0) return [];
    const width = Math.min(servers.length, slots.perUser);
    const release = slots.take(userId, width);
    try {
      const listed: ListedTools[] = new Array(servers.length);
      let next = 0;
      // `width` lanes, each listing the next server not yet taken.
      await Promise.all(
        Array.from({ length: width }, async () => {
          for (let index = next++; index < servers.length; index = next++) listed[index] = await listOne(userId, servers[index]!, signal);
        }),
      );
      return listed;
    } finally {
      release();
    }
  };
  return reader;
}
