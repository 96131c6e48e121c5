// MCP servers for the tests, on the official SDK's server side: fakes whose tools the test defines
// (recording every call with its headers and `_meta`, hanging, failing, answering huge results), and
// `@modelcontextprotocol/server-everything`, a server nobody here wrote, started as its own process.
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type IncomingMessage, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { closeServer, readJsonRequest } from './recorded.ts';

/** The HTTP request that carried a JSON-RPC message: a hostile server may echo any of it back. */
export interface FakeMcpRequest {
  /** The path and query string, as received. */
  url: string;
  headers: IncomingMessage['headers'];
}

export interface FakeMcpTool {
  name: string;
  /** As listed; a function is called at each listing with the request that asked. */
  description?: string | ((request: FakeMcpRequest) => string);
  inputSchema?: Record<string, unknown> | ((request: FakeMcpRequest) => Record<string, unknown>);
  /** What a call answers; a promise that never settles hangs the call. */
  run?(args: Record<string, unknown>, request: FakeMcpRequest): CallToolResult | Promise<CallToolResult>;
}

export interface RecordedMcpCall {
  name: string;
  arguments: Record<string, unknown>;
  meta: Record<string, unknown> | undefined;
  headers: IncomingMessage['headers'];
}

export interface FakeMcpServer {
  url: string;
  /** Every tools/call received, in order. */
  calls: RecordedMcpCall[];
  /** Every HTTP request's headers (initialize and list included). */
  requests: IncomingMessage['headers'][];
  /** Every HTTP request's method, in order (a GET opens the standalone event stream). */
  methods: string[];
  /** HTTP requests whose connection is still open (a held one, until the client lets go). */
  inFlight(): number;
  /** Requests held (`holds`) whose connection the client has not closed yet. */
  held(): number;
  close(): Promise<void>;
}

export const text = (value: string): CallToolResult => ({ content: [{ type: 'text', text: value }] });

/** A stateless Streamable HTTP server at /mcp offering `tools`. */
export interface FakeMcpOptions {
  /** A JSON-RPC message (by its method) the server never answers: the request hangs. */
  holds?: string;
  /**
   * tools/list answered page after page, each `delayMs` late, the tools on the last (`count`th) page:
   * a server that pages slowly.
   */
  slowPages?: { count: number; delayMs: number };
  /** The standalone GET stream answered with `retry: 0` and closed at once: a server driving reconnections. */
  retryZeroStream?: boolean;
  /** Requests to the path `from` answered with a redirect (307 unless `status`) to `to`, a path or a URL. */
  redirect?: { from: string; to: string; status?: number };
}

export async function startFakeMcpServer(tools: readonly FakeMcpTool[], options: FakeMcpOptions = {}): Promise<FakeMcpServer> {
  const calls: RecordedMcpCall[] = [];
  const requests: IncomingMessage['headers'][] = [];
  const methods: string[] = [];
  let open = 0;
  let held = 0;
  const http: HttpServer = createServer((req, res) => {
    requests.push(req.headers);
    methods.push(req.method ?? '');
    open++;
    res.once('close', () => open--);
    if (options.redirect && req.url?.startsWith(options.redirect.from)) {
      res.writeHead(options.redirect.status ?? 307, { location: options.redirect.to }).end();
      return;
    }
    if (!req.url?.startsWith('/mcp')) {
      res.writeHead(404).end();
      return;
    }
    if (options.retryZeroStream && req.method === 'GET') {
      res.writeHead(200, { 'content-type': 'text/event-stream' }).end('retry: 0\n\n');
      return;
    }
    // Stateless: a server and a transport per request, as the SDK's stateless example does.
    const server = toolServer(tools, calls, { url: req.url, headers: req.headers }, options);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    const answer = (body?: unknown) =>
      server
        .connect(transport)
        .then(() => transport.handleRequest(req, res, body))
        .catch(() => res.headersSent || res.writeHead(500).end());
    if (!options.holds || req.method !== 'POST') return void answer();
    readJsonRequest(req).then(
      ({ body }) => {
        if (body?.method !== options.holds) return answer(body);
        held++;
        if (res.closed) held--;
        else res.once('close', () => held--);
      },
      () => res.writeHead(400).end(),
    );
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    calls,
    requests,
    methods,
    inFlight: () => open,
    held: () => held,
    close: () => closeServer(http),
  };
}

/** An MCP server offering `tools`, recording each call with the headers of the request that carried it. */
function toolServer(
  tools: readonly FakeMcpTool[],
  calls: RecordedMcpCall[],
  received: FakeMcpRequest,
  options: Pick<FakeMcpOptions, 'slowPages'> = {},
): Server {
  const server = new Server({ name: 'fake-mcp', version: '1.0.0' }, { capabilities: { tools: {} } });
  const listed = () =>
    tools.map((tool) => ({
      name: tool.name,
      description: (typeof tool.description === 'function' ? tool.description(received) : tool.description) ?? `The ${tool.name} tool`,
      inputSchema: (typeof tool.inputSchema === 'function' ? tool.inputSchema(received) : tool.inputSchema) ?? {
        type: 'object',
        properties: {},
      },
    }));
  server.setRequestHandler(ListToolsRequestSchema, async (request) => {
    const pages = options.slowPages;
    if (!pages) return { tools: listed() };
    await new Promise((resolve) => setTimeout(resolve, pages.delayMs));
    const page = Number(request.params?.cursor ?? 1);
    return page >= pages.count ? { tools: listed() } : { tools: [], nextCursor: String(page + 1) };
  });
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const args = (request.params.arguments ?? {}) as Record<string, unknown>;
    calls.push({
      name: request.params.name,
      arguments: args,
      meta: request.params._meta as Record<string, unknown> | undefined,
      headers: received.headers,
    });
    const tool = tools.find((candidate) => candidate.name === request.params.name);
    if (!tool) throw new Error(`no tool ${request.params.name}`);
    return tool.run ? tool.run(args, received) : text('ok');
  });
  return server;
}

/**
 * A server that speaks only the older HTTP+SSE transport (GET /sse for the stream, POST /messages for
 * requests): a Streamable HTTP POST to its URL is answered 405, as such servers do.
 */
export async function startLegacySseMcpServer(
  tools: readonly FakeMcpTool[],
  options: { /** Each stream says `retry: 0`, names an endpoint that never answers, and closes. */ retryZeroStream?: boolean } = {},
): Promise<FakeMcpServer> {
  const calls: RecordedMcpCall[] = [];
  const requests: IncomingMessage['headers'][] = [];
  const methods: string[] = [];
  let open = 0;
  const sessions = new Map<string, SSEServerTransport>();
  const http: HttpServer = createServer((req, res) => {
    requests.push(req.headers);
    methods.push(req.method ?? '');
    open++;
    res.once('close', () => open--);
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (options.retryZeroStream && url.pathname === '/sse') {
      if (req.method !== 'GET') return void res.writeHead(405).end();
      return void res
        .writeHead(200, { 'content-type': 'text/event-stream' })
        .end('retry: 0\nevent: endpoint\ndata: /messages?sessionId=held\n\n');
    }
    // Its endpoint is held: the request waits until the client lets go.
    if (options.retryZeroStream) return;
    if (url.pathname === '/sse' && req.method === 'GET') {
      const transport = new SSEServerTransport('/messages', res);
      sessions.set(transport.sessionId, transport);
      res.on('close', () => sessions.delete(transport.sessionId));
      void toolServer(tools, calls, { url: req.url ?? '/', headers: req.headers }).connect(transport);
      return;
    }
    const session =
      url.pathname === '/messages' && req.method === 'POST' ? sessions.get(url.searchParams.get('sessionId') ?? '') : undefined;
    if (session) return void session.handlePostMessage(req, res);
    res.writeHead(url.pathname === '/sse' ? 405 : 404).end();
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/sse`,
    calls,
    requests,
    methods,
    inFlight: () => open,
    held: () => 0,
    close: () => closeServer(http),
  };
}

export interface EverythingServer {
  url: string;
  close(): Promise<void>;
}

/** `@modelcontextprotocol/server-everything` over Streamable HTTP, as its own process on a free port. */
export async function startEverythingServer(): Promise<EverythingServer> {
  const port = await freePort();
  const entry = path.resolve(import.meta.dirname, '../../../node_modules/@modelcontextprotocol/server-everything/dist/index.js');
  const child: ChildProcess = spawn(process.execPath, [entry, 'streamableHttp'], {
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  await new Promise<void>((resolve, reject) => {
    let said = '';
    const timer = setTimeout(() => reject(new Error(`server-everything did not start: ${said}`)), 30_000);
    child.stderr!.on('data', (chunk: Buffer) => {
      said += chunk.toString('utf8');
      if (said.includes('listening on port')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server-everything exited with ${code}: ${said}`));
    });
  });
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    async close() {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}
