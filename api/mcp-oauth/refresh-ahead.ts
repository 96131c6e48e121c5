// The housekeeping pass's part in keeping users signed in to their MCP servers: connections whose access
// token runs out before the next pass (and a minute more) are refreshed now, so a call rarely meets an
// expired token and does not wait for a refresh, and refresh tokens that lapse when unused stay in use.
// Each refresh takes the connection's row lock (store/mcp-connections.ts), as a call's would.
import type { Config } from '../../lib/config.ts';
import type { Logger } from '../../lib/logger.ts';
import type { MasterKey } from '../../lib/master-key.ts';
import { refreshAhead, REFRESH_AHEAD_MS } from '../../lib/mcp/oauth/bearer.ts';
import { McpSignInNeededError } from '../../lib/mcp/oauth/errors.ts';
import { oauthFetch } from '../../lib/mcp/oauth/fetch.ts';
import { createOutboundClient } from '../../lib/outbound.ts';
import type { Db } from '../../store/db.ts';
import { connectionAccess, connectionsRunningOut } from '../../store/mcp-connections.ts';

/** Connections refreshed by one pass at most; the rest wait for the next (or refresh on their call). */
const PER_PASS = 200;

export async function refreshRunningOut(
  deps: { db: Db; config: Config; logger: Logger; masterKeys: readonly MasterKey[] },
  intervalMs: number,
  signal?: AbortSignal,
): Promise<{ refreshed: number; signInNeeded: number }> {
  const outbound = createOutboundClient({ allowCidrs: deps.config.outbound.allowCidrs });
  const withinMs = 2 * intervalMs + REFRESH_AHEAD_MS;
  let refreshed = 0;
  let signInNeeded = 0;
  for (const { userId, serverId, url } of await connectionsRunningOut(deps.db, withinMs, PER_PASS)) {
    if (signal?.aborted) break;
    const fetch = oauthFetch(outbound.fetch, deps.config.mcp.connectTimeoutMs, signal);
    try {
      if (await refreshAhead(connectionAccess(deps.db, deps.masterKeys, userId, serverId), { id: serverId, url }, fetch, withinMs))
        refreshed++;
    } catch (error) {
      if (error instanceof McpSignInNeededError) {
        signInNeeded++;
        continue;
      }
      // The authorization server out of reach: the call (or the next pass) tries again.
      deps.logger.warn(
        { userId, serverId, err: (error as Error).message },
        'could not refresh a sign-in to an MCP server ahead of its expiry',
      );
    }
  }
  return { refreshed, signInNeeded };
}
