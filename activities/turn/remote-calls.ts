// Calls of remote MCP servers' tools, as the agent's user registered the server: its URL and headers are
// read at each call (a rotated token or a moved server works without a redeploy), its header secrets
// opened here and never returned. One connection per call, closed after it, so no worker holds a
// stranger's session open. A server that cannot be reached throws while the activity has attempts left
// (the same idempotency key goes with every attempt); on the last one the model is told instead, and
// the turn goes on. What the server says, and every error, has the header secrets' values and the
// credential-bearing parts of the server's URL masked (lib/mcp/open.ts): both reach events that a key
// without `agents:write` reads.
import type { Config } from '../../lib/config.ts';
import type { MasterKey } from '../../lib/master-key.ts';
import { callRemoteTool } from '../../lib/mcp/call.ts';
import { mcpErrorText } from '../../lib/mcp/error-text.ts';
import { McpHeaderError } from '../../lib/mcp/headers.ts';
import { openRegisteredServer } from '../../lib/mcp/open.ts';
import { urlCredentialMasker } from '../../lib/mcp/url-redaction.ts';
import type { OutboundClient } from '../../lib/outbound.ts';
import { TOOL_CALL_ATTEMPTS } from '../../core/turn-types.ts';
import type { Db } from '../../store/db.ts';
import { getMcpServer } from '../../store/mcp-servers.ts';
import { connectionAccess } from '../../store/mcp-connections.ts';
import { bearerSource } from '../../lib/mcp/oauth/bearer.ts';
import { McpSignInNeededError } from '../../lib/mcp/oauth/errors.ts';
import { oauthFetch } from '../../lib/mcp/oauth/fetch.ts';
import { openSecrets } from '../../store/secrets.ts';
import { toolError } from '../tools/define.ts';
import type { RemoteToolServers } from '../tools/types.ts';

export interface RemoteCallDeps {
  db: Db;
  config: Config;
  masterKeys: readonly MasterKey[];
  outbound: OutboundClient;
}

/** The activity's own: which attempt this is, and the signal that ends it (an abort, a lost worker). */
export interface RemoteCallAttempt {
  attempt: number;
  signal: AbortSignal;
}

export function remoteToolServers(deps: RemoteCallDeps, owner: () => Promise<string>, running: RemoteCallAttempt): RemoteToolServers {
  const limits = deps.config.mcp;
  return {
    async call(serverId, toolName, input, idempotencyKey) {
      const userId = await owner();
      const server = await getMcpServer(deps.db, userId, serverId);
      if (!server) {
        return toolError(
          `The MCP server "${serverId}" is no longer registered by this agent's user, so its tool "${toolName}" cannot run.`,
        );
      }
      const unreachable = (error: unknown, mask: (text: string) => string = urlCredentialMasker(server.url)) => {
        const text = mask(`The MCP server "${serverId}" could not be reached: ${mcpErrorText(error)}`);
        if (running.attempt >= TOOL_CALL_ATTEMPTS) return toolError(`${text} (tried ${TOOL_CALL_ATTEMPTS} times)`);
        throw new Error(text);
      };
      let opened;
      const bearer =
        server.auth?.type === 'oauth'
          ? bearerSource(
              connectionAccess(deps.db, deps.masterKeys, userId, serverId),
              server,
              oauthFetch(deps.outbound.fetch, limits.connectTimeoutMs, running.signal),
            )
          : undefined;
      try {
        opened = await openRegisteredServer(
          server,
          (names) => openSecrets(deps.db, deps.masterKeys, userId, names),
          {
            fetch: deps.outbound.fetch,
            connectTimeoutMs: limits.connectTimeoutMs,
            maxResponseBytes: limits.resultMaxBytes,
            signal: running.signal,
          },
          bearer,
        );
      } catch (error) {
        // Its headers name a secret that is gone or may not go there: no attempt would do better.
        if (error instanceof McpHeaderError) return toolError(`The MCP server "${serverId}" cannot be called: ${error.message}`);
        // Only its user can help: they sign in (POST /mcp/<id>/connect, or Connect on the dashboard's tool servers page).
        if (error instanceof McpSignInNeededError) return { ...toolError(`${error.message}. The call did not run.`), signIn: { serverId } };
        return unreachable(error);
      }
      const { client, mask } = opened;
      try {
        const outcome = await callRemoteTool(client, serverId, toolName, input, {
          timeoutMs: limits.callTimeoutMs,
          signal: running.signal,
          ...(idempotencyKey ? { idempotencyKey } : {}),
        });
        // A server echoing its headers or its URL must not hand the model a secret to carry elsewhere.
        return { ...outcome, output: typeof outcome.output === 'string' ? mask(outcome.output) : outcome.output };
      } catch (error) {
        return unreachable(error, mask);
      } finally {
        await client.close().catch(() => undefined);
      }
    },
  };
}
