// What the MCP integration tests share: registering a server as the file's user, one send waited for,
// the tool results of a session, and fake MCP servers closed after the file.
import { afterAll } from 'vitest';
import { call } from '../client/request.ts';
import type { AgentEnv } from './agent-env.ts';
import type { SessionEvent } from '../../../contract/events.ts';
import { startFakeMcpServer, type FakeMcpOptions, type FakeMcpServer, type FakeMcpTool } from '../fakes/mcp-servers.ts';

export const registerMcp = (env: AgentEnv, id: string, body: Record<string, unknown>) =>
  call<Record<string, unknown>>(`${env.api.url}/mcp/${id}`, { method: 'PUT', headers: env.user.auth, json: body });

export function sendAndWait(env: AgentEnv, sessionId: string, words: string) {
  return call<{ reply?: string; status: string }>(`${env.api.url}/session/${sessionId}`, {
    headers: env.user.auth,
    json: { parts: [{ type: 'text', text: words }] },
  });
}

export const toolResults = (events: SessionEvent[]) => events.filter((event) => event.type === 'tool.result');

/** Starts fake MCP servers for a test file; every one is closed after the file. Call at the file's top level. */
export function fakeMcpServers(): (tools: FakeMcpTool[], options?: FakeMcpOptions) => Promise<FakeMcpServer> {
  const started: FakeMcpServer[] = [];
  afterAll(async () => {
    await Promise.all(started.map((server) => server.close()));
  });
  return async (tools, options) => {
    const server = await startFakeMcpServer(tools, options);
    started.push(server);
    return server;
  };
}
