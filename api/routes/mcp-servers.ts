// Tool servers: GET /mcps lists the built-in ones and the remote MCP servers the caller registered;
// PUT, GET and DELETE /mcp/<id> manage one. Registering connects to nothing (the server may not be up
// yet); GET /mcp/<id> connects and lists the tools now, which is how a user checks URL and headers: it
// needs `agents:write`, as the listing runs outbound work as the user. A key without it reads the
// stored servers in GET /mcps, their URLs with query string, fragment and userinfo redacted.
import { OPERATIONS } from '../../contract/operations/index.ts';
import { MCP_SERVER_ID_PATTERN, type RemoteToolServerView } from '../../contract/operations/tools.ts';
import { TOOL_SERVERS, toolServer } from '../../contract/tool-servers.ts';
import { McpServerLimitError, McpUnreachableError, NotFoundError, ValidationError } from '../../lib/workflow-safe/errors.ts';
import { createOutboundClient, OutboundRequestError } from '../../lib/outbound.ts';
import { deleteMcpServer, getMcpServer, listMcpServers, putMcpServer, type McpServerRecord } from '../../store/mcp-servers.ts';
import type { ApiDeps } from '../context.ts';
import type { RegisteredToolsReader } from '../agents/registered-tools.ts';
import { callerGone } from '../agents/caller-gone.ts';
import { mayReadCapabilities } from '../agents/read-only-view.ts';
import { redactedMcpUrl } from '../../lib/mcp/url-redaction.ts';
import { defineRoute } from '../route.ts';
import { getConnection, listConnections, type McpConnection } from '../../store/mcp-connections.ts';
import type { McpConnectionView } from '../../contract/operations/tools.ts';
import type { SignIns } from '../mcp-oauth/sign-in.ts';
import { publicBaseUrl } from '../public-url.ts';

const builtinView = (server: (typeof TOOL_SERVERS)[number]) => ({ ...server, kind: 'builtin' as const, tools: [...server.tools] });

/** The server as stored; its URL whole only for `fullUrl` (a caller who may change it). */
function remoteView(server: McpServerRecord, fullUrl: boolean, connection: McpConnection | undefined): RemoteToolServerView {
  return {
    id: server.id,
    kind: 'remote',
    url: fullUrl ? server.url : redactedMcpUrl(server.url),
    headerNames: Object.keys(server.headers),
    description: server.description,
    auth: server.auth,
    connection: server.auth ? connectionView(server, connection) : null,
    createdAt: server.createdAt.toISOString(),
    updatedAt: server.updatedAt.toISOString(),
  };
}

/** The user's sign-in as GET /mcps shows it: never a token, only whether there is a working one. */
function connectionView(server: McpServerRecord, connection: McpConnection | undefined): McpConnectionView {
  const times = {
    expiresAt: connection?.expiresAt?.toISOString() ?? null,
    connectedAt: connection?.connectedAt.toISOString() ?? null,
    refreshedAt: connection?.refreshedAt?.toISOString() ?? null,
  };
  if (!connection) return { status: 'not-connected', scopes: [], ...times, reason: null };
  const reason = connection.needsSignIn ?? (connection.serverUrl !== server.url ? 'its URL changed since it was signed in to' : null);
  return { status: reason ? 'needs-sign-in' : 'connected', scopes: connection.scopes, ...times, reason };
}

/** The id from the path, as a bundle could name it, and not one of the built-in servers. */
function checkedId(id: string): string {
  if (!MCP_SERVER_ID_PATTERN.test(id)) {
    throw new ValidationError(
      `A tool server id is a lower-case letter, then letters, digits, "_" or "-", at most 64 (${MCP_SERVER_ID_PATTERN.source})`,
    );
  }
  return id;
}

export function mcpServerRoutes(deps: ApiDeps, registeredTools: RegisteredToolsReader, signIn: SignIns) {
  const outbound = createOutboundClient({ allowCidrs: deps.config.outbound.allowCidrs });
  const limits = deps.config.mcp;
  return [
    defineRoute(OPERATIONS.listToolServers, {
      async handle({ principal }) {
        const [mine, connections] = await Promise.all([
          listMcpServers(deps.db, principal!.userId),
          listConnections(deps.db, principal!.userId),
        ]);
        const fullUrl = mayReadCapabilities(principal!);
        const remote = mine.map((server) => remoteView(server, fullUrl, connections.get(server.id)));
        return { status: 200, body: [...TOOL_SERVERS.map(builtinView), ...remote] };
      },
    }),
    defineRoute(OPERATIONS.putMcpServer, {
      async handle({ params, body, principal }) {
        const id = checkedId(params.id!);
        if (toolServer(id)) throw new ValidationError(`"${id}" is a built-in tool server; give yours another id`);
        try {
          outbound.checkUrl(body.url);
        } catch (error) {
          if (!(error instanceof OutboundRequestError)) throw error;
          throw new ValidationError(`The URL ${error.message}`, [{ path: '/url', message: error.message }]);
        }
        const stored = await putMcpServer(
          deps.db,
          principal!.userId,
          {
            id,
            url: body.url,
            headers: body.headers ?? {},
            ...(body.description !== undefined ? { description: body.description } : {}),
            ...(body.auth ? { auth: body.auth } : {}),
          },
          limits.serversPerUser,
        );
        // Registered without auth now: a sign-in kept from before would never be used again, so it is ended.
        if (stored && !stored.auth) await signIn.disconnect(principal!.userId, id);
        if (!stored) {
          throw new McpServerLimitError(
            `You have registered ${limits.serversPerUser} MCP servers, the most you may (MCP_SERVERS_PER_USER); delete one first`,
          );
        }
        return { status: stored.created ? 201 : 200, body: remoteView(stored, true, await getConnection(deps.db, principal!.userId, id)) };
      },
    }),
    defineRoute(OPERATIONS.getMcpServer, {
      async handle({ params, principal, res }) {
        const builtin = toolServer(params.id!);
        if (builtin) return { status: 200, body: builtinView(builtin) };
        const server = await getMcpServer(deps.db, principal!.userId, params.id!);
        if (!server) throw new NotFoundError(`No built-in tool server, and none you registered, has the id "${params.id}"`);
        const [listed] = await registeredTools(principal!.userId, [server], callerGone(res));
        if ('error' in listed!) throw new McpUnreachableError(`${listed.error.charAt(0).toUpperCase()}${listed.error.slice(1)}`);
        const connection = server.auth ? await getConnection(deps.db, principal!.userId, server.id) : undefined;
        return { status: 200, body: { ...remoteView(server, true, connection), tools: listed!.tools } };
      },
    }),
    defineRoute(OPERATIONS.deleteMcpServer, {
      async handle({ params, principal }) {
        // Signed out first: the row's delete would forget the tokens without revoking them.
        await signIn.disconnect(principal!.userId, params.id!);
        if (!(await deleteMcpServer(deps.db, principal!.userId, params.id!))) {
          throw new NotFoundError(`You registered no MCP server with the id "${params.id}"`);
        }
        return { status: 204 };
      },
    }),
    defineRoute(OPERATIONS.connectMcpServer, {
      async handle({ params, principal, req, res }) {
        const server = await getMcpServer(deps.db, principal!.userId, params.id!);
        if (!server) throw new NotFoundError(`You registered no MCP server with the id "${params.id}"`);
        return {
          status: 200,
          body: await signIn.start(principal!.userId, server, publicBaseUrl(deps.config, req), { signal: callerGone(res) }),
        };
      },
    }),
    defineRoute(OPERATIONS.disconnectMcpServer, {
      async handle({ params, principal }) {
        const outcome = await signIn.disconnect(principal!.userId, params.id!);
        if (!outcome) throw new NotFoundError(`You are not signed in to an MCP server of yours with the id "${params.id}"`);
        return { status: 200, body: outcome };
      },
    }),
  ];
}
