// A connection to a remote MCP server, made with the official SDK's client: Streamable HTTP first and,
// when the server answers that with a 4xx (it predates it), the older HTTP+SSE transport. Every request
// goes through the outbound guard (private addresses refused, no redirects) and every answer's bytes are
// counted, so a server that streams without end or answers a gzip bomb ends the call, not the process.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import { limitedFetch } from '../response-limits.ts';

export interface McpEndpoint {
  /** The id the user registered it under, named in errors. */
  id: string;
  url: string;
  /** With secrets filled in (lib/mcp/headers.ts). */
  headers: Record<string, string>;
}

export interface McpConnectOptions {
  /** The outbound guard's fetch (lib/outbound.ts). */
  fetch: typeof globalThis.fetch;
  connectTimeoutMs: number;
  /** Bytes of any one answer, decompressed. */
  maxResponseBytes: number;
  signal?: AbortSignal;
}

/** Error answers are read whole by the SDK to build its error: kept small. */
const ERROR_BODY_BYTES = 64 * 1024;

/**
 * The service never checks a server's results against the output schemas it declares (the model reads
 * what came), so the schemas, a stranger's, are never compiled in this process.
 */
const acceptEverything: jsonSchemaValidator = {
  getValidator: () => (input) => ({ valid: true, data: input as never, errorMessage: undefined }),
};

const CLIENT_INFO = { name: 'agent-service', version: '1' };

/** A connected client; close it when done (it ends the server's session). */
export async function connectMcp(endpoint: McpEndpoint, options: McpConnectOptions): Promise<Client> {
  const what = `The MCP server "${endpoint.id}"`;
  const fetch = limitedFetch(options.fetch, {
    body: { maxBytes: options.maxResponseBytes, what, setting: 'MCP_RESULT_MAX_BYTES' },
    errorBody: { maxBytes: ERROR_BODY_BYTES, what },
  });
  const url = new URL(endpoint.url);
  const requestInit: RequestInit = { headers: endpoint.headers };
  const connectOptions = { timeout: options.connectTimeoutMs, ...(options.signal ? { signal: options.signal } : {}) };
  const client = new Client(CLIENT_INFO, { capabilities: {}, jsonSchemaValidator: acceptEverything });
  try {
    await client.connect(new StreamableHTTPClientTransport(url, { fetch, requestInit }), connectOptions);
    return client;
  } catch (error) {
    await client.close().catch(() => undefined);
    if (!(error instanceof StreamableHTTPError) || error.code === undefined || error.code < 400 || error.code >= 500) throw error;
    // 401 and 403 are the server's word on the headers, not on the transport: no other transport helps.
    if (error.code === 401 || error.code === 403) throw error;
  }
  const legacy = new Client(CLIENT_INFO, { capabilities: {}, jsonSchemaValidator: acceptEverything });
  try {
    await legacy.connect(new SSEClientTransport(url, { fetch, requestInit }), connectOptions);
    return legacy;
  } catch (error) {
    await legacy.close().catch(() => undefined);
    throw error;
  }
}
