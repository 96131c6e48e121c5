// The official MCP SDK, loaded on first use. It builds its protocol's schemas as it is imported (about a
// third of a second), which every API and worker process would otherwise pay at each start, and a
// restarted process pays in the time it is not serving, whether or not any agent uses an MCP server.
import type * as ClientModule from '@modelcontextprotocol/sdk/client/index.js';
import type * as HttpModule from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type * as SseModule from '@modelcontextprotocol/sdk/client/sse.js';
import type * as TypesModule from '@modelcontextprotocol/sdk/types.js';

export interface McpSdk {
  Client: typeof ClientModule.Client;
  StreamableHTTPClientTransport: typeof HttpModule.StreamableHTTPClientTransport;
  StreamableHTTPError: typeof HttpModule.StreamableHTTPError;
  SSEClientTransport: typeof SseModule.SSEClientTransport;
  SseError: typeof SseModule.SseError;
  McpError: typeof TypesModule.McpError;
  ErrorCode: typeof TypesModule.ErrorCode;
}

let loading: Promise<McpSdk> | undefined;
let loaded: McpSdk | undefined;

export function mcpSdk(): Promise<McpSdk> {
  loading ??= Promise.all([
    import('@modelcontextprotocol/sdk/client/index.js'),
    import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
    import('@modelcontextprotocol/sdk/client/sse.js'),
    import('@modelcontextprotocol/sdk/types.js'),
  ]).then(([client, http, sse, types]) => {
    loaded = {
      Client: client.Client,
      StreamableHTTPClientTransport: http.StreamableHTTPClientTransport,
      StreamableHTTPError: http.StreamableHTTPError,
      SSEClientTransport: sse.SSEClientTransport,
      SseError: sse.SseError,
      McpError: types.McpError,
      ErrorCode: types.ErrorCode,
    };
    return loaded;
  });
  return loading;
}

/** The SDK if something loaded it already: an error can have come from it only then. */
export function loadedMcpSdk(): McpSdk | undefined {
  return loaded;
}
