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

export interface FakeMcpTool {
  name: string;
  description?: string;
  inputSchema?: Record<string, unknown>;
  /** What a call answers; a promise that never settles hangs the call. */
  run?(args: Record<string, unknown>): CallToolResult | Promise<CallToolResult>;
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
  close(): Promise<void>;
}

export const text = (value: string): CallToolResult => ({ content: [{ type: 'text', text: value }] });

/** A stateless Streamable HTTP server at /mcp offering `tools`. */
export interface FakeMcpOptions {
  /** A JSON-RPC message (by its method) the server never answers: the request hangs. */
  holds?: string;
}

export async function startFakeMcpServer(tools: readonly FakeMcpTool[], options: FakeMcpOptions = {}): Promise<FakeMcpServer> {
  const calls: RecordedMcpCall[] = [];
  const requests: IncomingMessage['headers'][] = [];
  const http: HttpServer = createServer((req, res) => {
    requests.push(req.headers);
    if (!req.url?.startsWith('/mcp')) {
      res.writeHead(404).end();
      return;
    }
    // Stateless: a server and a transport per request, as the SDK's stateless example does.
    const server = toolServer(tools, calls, req.headers);
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
      ({ body }) => (body?.method === options.holds ? undefined : answer(body)),
      () => res.writeHead(400).end(),
    );
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/mcp`, calls, requests, close: () => closeServer(http) };
}

/** An MCP server offering `tools`, recording each call with the headers of the request that carried it. */
function toolServer(tools: readonly FakeMcpTool[], calls: RecordedMcpCall[], headers: IncomingMessage['headers']): Server {
  const server = new Server({ name: 'fake-mcp', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: tools.map((tool) => ({
      name: tool.name,
      description: tool.description ?? `The ${tool.name} tool`,
      inputSchema: tool.inputSchema ?? { type: 'object', properties: {} },
    })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const args = (request.params.arguments ?? {}) as Record<string, unknown>;
    calls.push({ name: request.params.name, arguments: args, meta: request.params._meta as Record<string, unknown> | undefined, headers });
    const tool = tools.find((candidate) => candidate.name === request.params.name);
    if (!tool) throw new Error(`no tool ${request.params.name}`);
    return tool.run ? tool.run(args) : text('ok');
  });
  return server;
}

/**
 * A server that speaks only the older HTTP+SSE transport (GET /sse for the stream, POST /messages for
 * requests): a Streamable HTTP POST to its URL is answered 405, as such servers do.
 */
export async function startLegacySseMcpServer(tools: readonly FakeMcpTool[]): Promise<FakeMcpServer> {
  const calls: RecordedMcpCall[] = [];
  const requests: IncomingMessage['headers'][] = [];
  const sessions = new Map<string, SSEServerTransport>();
  const http: HttpServer = createServer((req, res) => {
    requests.push(req.headers);
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname === '/sse' && req.method === 'GET') {
      const transport = new SSEServerTransport('/messages', res);
      sessions.set(transport.sessionId, transport);
      res.on('close', () => sessions.delete(transport.sessionId));
      void toolServer(tools, calls, req.headers).connect(transport);
      return;
    }
    const session =
      url.pathname === '/messages' && req.method === 'POST' ? sessions.get(url.searchParams.get('sessionId') ?? '') : undefined;
    if (session) return void session.handlePostMessage(req, res);
    res.writeHead(url.pathname === '/sse' ? 405 : 404).end();
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/sse`, calls, requests, close: () => closeServer(http) };
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
