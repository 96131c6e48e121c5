// A registered server connected to as its owner: its header secrets opened (only those it names), held to
// their hosts, and the connection made through the guard. Shared by deploy (listing tools), GET /mcp/<id>
// and the activity that calls a tool, so all three send the same headers the same way.
import { connectMcp, type McpConnectOptions } from './connect.ts';
import { filledWith, headerSecretNames } from './headers.ts';
import { secretMasker } from '../secret-mask.ts';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';

export interface RegisteredServer {
  id: string;
  url: string;
  headers: Record<string, string>;
}

export type SecretOpener = (names: readonly string[]) => Promise<ReadonlyMap<string, { value: string; hosts: readonly string[] }>>;

/**
 * The connected client, and `mask`, which hides the header secrets' values in anything the server said
 * (results, errors, tool descriptions): a server may echo the headers it was sent.
 */
export async function openRegisteredServer(
  server: RegisteredServer,
  openSecrets: SecretOpener,
  options: McpConnectOptions,
): Promise<{ client: Client; mask: (text: string) => string }> {
  const names = headerSecretNames(server.headers);
  const secrets = names.length > 0 ? await openSecrets(names) : new Map();
  const { headers, values } = filledWith(server.headers, server.url, secrets);
  const mask = secretMasker(values);
  try {
    return { client: await connectMcp({ id: server.id, url: server.url, headers }, options), mask };
  } catch (error) {
    // The SDK's errors may quote what the server answered.
    if (error instanceof Error) error.message = mask(error.message);
    throw error;
  }
}
