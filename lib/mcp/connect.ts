// A connection to a remote MCP server, made with the official SDK's client: Streamable HTTP first and,
// when the server answers that with a 4xx (it predates it), the older HTTP+SSE transport. Every request
// goes through the outbound guard (private addresses refused; the guard itself follows no redirect) and
// every answer's bytes are counted, so a server that streams without end or answers a gzip bomb ends the
// call, not the process. Redirects are the SDK's `same-origin` policy: followed only within the URL's
// origin (or from http to https on the same host), keeping the method, at most 5; each hop is a new
// request through the same guarded fetch, so the guard and the byte count hold on every hop.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import { limitedFetch } from '../response-limits.ts';
import { mcpSdk } from './sdk.ts';

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

/**
 * The service never uses what a server sends on its own (notifications, requests to the client), so the
 * standalone GET stream of Streamable HTTP is never opened: its GET is answered here, 405, which the SDK
 * reads as "this server offers no stream". And no stream is ever reconnected (`maxRetries: 0`): the SDK
 * obeys a server's `retry:` and restarts its count at each graceful close, so a hostile server answering
 * `retry: 0` and closing would otherwise have it reconnect without end.
 */
const NO_RECONNECTION = { maxRetries: 0, initialReconnectionDelay: 1000, maxReconnectionDelay: 1000, reconnectionDelayGrowFactor: 1 };

const isGet = (init: RequestInit | undefined) => (init?.method ?? 'GET').toUpperCase() === 'GET';

function withoutStandaloneStream(fetch: typeof globalThis.fetch): typeof globalThis.fetch {
  return (input, init) => (isGet(init) ? Promise.resolve(new Response(null, { status: 405 })) : fetch(input, init));
}

/**
 * The older HTTP+SSE transport's one stream, opened once: its EventSource reconnects whenever the stream
 * ends, after the server's `retry:`, for as long as the connection lives. A GET after a stream was
 * opened is answered here, 204, which ends an EventSource for good (redirect hops before the stream
 * opened still go out).
 */
function streamOpenedOnce(fetch: typeof globalThis.fetch): typeof globalThis.fetch {
  let opened = false;
  return async (input, init) => {
    if (!isGet(init)) return fetch(input, init);
    if (opened) return new Response(null, { status: 204 });
    const response = await fetch(input, init);
    if (response.ok) opened = true;
    return response;
  };
}

/**
 * A connected client; close it when done (it ends the server's session). The whole connection (both
 * transports, the SSE stream's `endpoint` event, the `initialized` notice) ends by `connectTimeoutMs`:
 * the SDK bounds only the `initialize` request, and a server that answers that and then holds the next
 * request, or opens its event stream and says nothing, would otherwise hold the caller for good.
 */
export async function connectMcp(endpoint: McpEndpoint, options: McpConnectOptions): Promise<Client> {
  const connecting = new AbortController();
  const timer = setTimeout(
    () => connecting.abort(new McpConnectTimeoutError(`the server did not finish connecting within ${options.connectTimeoutMs} ms`)),
    options.connectTimeoutMs,
  );
  const ended = options.signal ? AbortSignal.any([options.signal, connecting.signal]) : connecting.signal;
  try {
    return await connectWithin(endpoint, options, ended);
  } finally {
    clearTimeout(timer);
  }
}

export class McpConnectTimeoutError extends Error {
  override name = 'McpConnectTimeoutError';
}

/** Every request of the connection carries `ended` (its own signal too, when it has one). */
function endedBy(fetch: typeof globalThis.fetch, ended: AbortSignal): typeof globalThis.fetch {
  return (input, init) => fetch(input, { ...init, signal: init?.signal ? AbortSignal.any([init.signal, ended]) : ended });
}

/** `connect`, given up (and the client closed) once `ended` fires, whatever the SDK is waiting for. */
async function connectedBy(client: Client, transport: Transport, timeoutMs: number, ended: AbortSignal): Promise<void> {
  const gaveUp = new Promise<never>((_, reject) => {
    if (ended.aborted) reject(ended.reason as Error);
    ended.addEventListener('abort', () => reject(ended.reason as Error), { once: true });
  });
  try {
    await Promise.race([client.connect(transport, { timeout: timeoutMs, signal: ended }), gaveUp]);
  } catch (error) {
    await client.close().catch(() => undefined);
    throw error;
  }
}

async function connectWithin(endpoint: McpEndpoint, options: McpConnectOptions, ended: AbortSignal): Promise<Client> {
  const { Client, StreamableHTTPClientTransport, StreamableHTTPError, SSEClientTransport } = await mcpSdk();
  const what = `The MCP server "${endpoint.id}"`;
  const limited = limitedFetch(options.fetch, {
    body: { maxBytes: options.maxResponseBytes, what, setting: 'MCP_RESULT_MAX_BYTES' },
    errorBody: { maxBytes: ERROR_BODY_BYTES, what },
  });
  // Connecting is bounded by `ended`; the calls after it by their own timeouts and the caller's signal.
  let connected = false;
  const fetch: typeof globalThis.fetch = (input, init) => (connected ? limited(input, init) : endedBy(limited, ended)(input, init));
  const url = new URL(endpoint.url);
  const requestInit: RequestInit = { headers: endpoint.headers };
  const client = new Client(CLIENT_INFO, { capabilities: {}, jsonSchemaValidator: acceptEverything });
  try {
    const transport = new StreamableHTTPClientTransport(url, {
      fetch: withoutStandaloneStream(fetch),
      requestInit,
      reconnectionOptions: NO_RECONNECTION,
      redirectPolicy: 'same-origin',
    });
    await connectedBy(client, transport, options.connectTimeoutMs, ended);
    connected = true;
    return client;
  } catch (error) {
    if (!(error instanceof StreamableHTTPError) || error.code === undefined || error.code < 400 || error.code >= 500) throw error;
    // 401 and 403 are the server's word on the headers, not on the transport: no other transport helps.
    if (error.code === 401 || error.code === 403) throw error;
  }
  const legacy = new Client(CLIENT_INFO, { capabilities: {}, jsonSchemaValidator: acceptEverything });
  const legacyTransport = new SSEClientTransport(url, { fetch: streamOpenedOnce(fetch), requestInit, redirectPolicy: 'same-origin' });
  await connectedBy(legacy, legacyTransport, options.connectTimeoutMs, ended);
  connected = true;
  return legacy;
}
