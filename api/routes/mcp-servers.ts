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

const builtinView = (server: (typeof TOOL_SERVERS)[number]) => ({ ...server, kind: 'builtin' as const, tools: [...server.tools] });

/** The server as stored; its URL whole only for `fullUrl` (a caller who may change it). */
function remoteView(server: McpServerRecord, fullUrl: boolean): RemoteToolServerView {
  return {
    id: server.id,
    kind: 'remote',
    url: fullUrl ? server.url : redactedMcpUrl(server.url),
    headerNames: Object.keys(server.headers),
    description: server.description,
    createdAt: server.createdAt.toISOString(),
    updatedAt: server.updatedAt.toISOString(),
  };
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

export function mcpServerRoutes(deps: ApiDeps, registeredTools: RegisteredToolsReader) {
  const outbound = createOutboundClient({ allowCidrs: deps.config.outbound.allowCidrs });
  const limits = deps.config.mcp;
  return [
    defineRoute(OPERATIONS.listToolServers, {
      async handle({ principal }) {
        const mine = await listMcpServers(deps.db, principal!.userId);
        const fullUrl = mayReadCapabilities(principal!);
        return { status: 200, body: [...TOOL_SERVERS.map(builtinView), ...mine.map((server) => remoteView(server, fullUrl))] };
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
          { id, url: body.url, headers: body.headers ?? {}, ...(body.description !== undefined ? { description: body.description } : {}) },
          limits.serversPerUser,
        );
        if (!stored) {
          throw new McpServerLimitError(
            `You have registered ${limits.serversPerUser} MCP servers, the most you may (MCP_SERVERS_PER_USER); delete one first`,
          );
        }
        return { status: stored.created ? 201 : 200, body: remoteView(stored, true) };
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
        return { status: 200, body: { ...remoteView(server, true), tools: listed!.tools } };
      },
    }),
    defineRoute(OPERATIONS.deleteMcpServer, {
      async handle({ params, principal }) {
        if (!(await deleteMcpServer(deps.db, principal!.userId, params.id!))) {
          throw new NotFoundError(`You registered no MCP server with the id "${params.id}"`);
        }
        return { status: 204 };
      },
    }),
  ];
}
