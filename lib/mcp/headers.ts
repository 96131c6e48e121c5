// A registered MCP server's headers as sent: every {{secrets.KEY}} replaced by the owner's secret, and
// only when that secret may go to the server's host (lib/secret-hosts.ts), as for the `http` tool.
import { secretReferences, substituteSecrets } from '../channel-config.ts';
import { secretHostRefusal } from '../secret-hosts.ts';

export class McpHeaderError extends Error {
  override name = 'McpHeaderError';
}

/** The secret names the headers reference. */
export function headerSecretNames(headers: Record<string, string>): string[] {
  return secretReferences(headers);
}

/** The headers to send, or McpHeaderError naming the secret (never its value) that cannot be used. */
export function filledHeaders(
  headers: Record<string, string>,
  url: string,
  secrets: ReadonlyMap<string, { value: string; hosts: readonly string[] }>,
): Record<string, string> {
  return filledWith(headers, url, secrets).headers;
}

/** The headers to send and the secret values filled in (by name), for masking what the server answers. */
export function filledWith(
  headers: Record<string, string>,
  url: string,
  secrets: ReadonlyMap<string, { value: string; hosts: readonly string[] }>,
): { headers: Record<string, string>; values: ReadonlyMap<string, string> } {
  const named = new Map([...secrets].filter(([name]) => headerSecretNames(headers).includes(name)));
  const refused = secretHostRefusal(named, url);
  if (refused) throw new McpHeaderError(refused);
  const values = new Map([...named].map(([name, secret]) => [name, secret.value]));
  try {
    const filled = Object.entries(substituteSecrets(headers, values, 'headers')).map(([name, value]) => [name, String(value)]);
    return { headers: Object.fromEntries(filled) as Record<string, string>, values };
  } catch (error) {
    throw new McpHeaderError((error as Error).message);
  }
}
