// A registered server connected to as its owner: its header secrets opened (only those it names), held to
// their hosts, and the connection made through the guard. Shared by deploy (listing tools), GET /mcp/<id>
// and the activity that calls a tool, so all three send the same headers the same way.
import { connectMcp, type McpConnectOptions } from './connect.ts';
import { filledHeaders, headerSecretNames } from './headers.ts';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';

export interface RegisteredServer {
  id: string;
  url: string;
  headers: Record<string, string>;
}

export type SecretOpener = (names: readonly string[]) => Promise<ReadonlyMap<string, { value: string; hosts: readonly string[] }>>;

export async function openRegisteredServer(
  server: RegisteredServer,
  openSecrets: SecretOpener,
  options: McpConnectOptions,
): Promise<Client> {
  const names = headerSecretNames(server.headers);
  const secrets = names.length > 0 ? await openSecrets(names) : new Map();
  const headers = filledHeaders(server.headers, server.url, secrets);
  return connectMcp({ id: server.id, url: server.url, headers }, options);
}
