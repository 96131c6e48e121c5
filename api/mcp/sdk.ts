// The official MCP SDK's server side, loaded on the first MCP request: it builds its protocol's schemas
// as it is imported (a third of a second), which a process that serves no MCP client never pays.
import type * as ServerModule from '@modelcontextprotocol/sdk/server/index.js';
import type * as HttpModule from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type * as TypesModule from '@modelcontextprotocol/sdk/types.js';

export interface McpServerSdk {
  Server: typeof ServerModule.Server;
  StreamableHTTPServerTransport: typeof HttpModule.StreamableHTTPServerTransport;
  types: typeof TypesModule;
}

let loading: Promise<McpServerSdk> | undefined;

export function mcpServerSdk(): Promise<McpServerSdk> {
  loading ??= Promise.all([
    import('@modelcontextprotocol/sdk/server/index.js'),
    import('@modelcontextprotocol/sdk/server/streamableHttp.js'),
    import('@modelcontextprotocol/sdk/types.js'),
  ]).then(([server, http, types]) => ({ Server: server.Server, StreamableHTTPServerTransport: http.StreamableHTTPServerTransport, types }));
  return loading;
}
