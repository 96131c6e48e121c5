// A registered server connected to as its owner: its header secrets opened (only those it names), held to
// their hosts, and the connection made through the guard. Shared by deploy (listing tools), GET /mcp/<id>
// and the activity that calls a tool, so all three send the same headers the same way.
import { connectMcp, type McpConnectOptions } from './connect.ts';
import { filledWith, headerSecretNames } from './headers.ts';
import { urlCredentialMasker, urlCredentialParts } from './url-redaction.ts';
import { secretMasker, valueMasker } from '../secret-mask.ts';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';

export interface RegisteredServer {
  id: string;
  url: string;
  headers: Record<string, string>;
}

export type SecretOpener = (names: readonly string[]) => Promise<ReadonlyMap<string, { value: string; hosts: readonly string[] }>>;

export interface OpenedServer {
  client: Client;
  /**
   * Hides, in anything the server said (results, errors), the header secrets' values (by name), its
   * credential-looking literal header values and the credential-bearing parts of its URL
   * (lib/mcp/url-redaction.ts): a server may echo what it was sent.
   */
  mask: (text: string) => string;
  /**
   * Every credential the server is sent, by what it is: the header secrets' values, credential-looking
   * literal header values, the credential parts of its URL; for refusing a tool list that quotes one
   * (lib/mcp/tools.ts).
   */
  credentials: ReadonlyArray<readonly [string, string]>;
}

/** Headers whose literal values are taken for credentials (others, such as `Accept`, hold ordinary words). */
const CREDENTIAL_HEADER = /auth|key|token|secret|cookie|session|passw|credential|signature/i;
/** A word of a literal credential header this long or longer is a credential of its own (`Bearer <token>`). */
const CREDENTIAL_WORD_CHARS = 12;
/** Shorter literal values and URL parts (`v=2`) would refuse lists that merely say the same word. */
const CREDENTIAL_MIN_CHARS = 8;

/** Credential-looking literal header values the server is sent, by header name: each value whole, and its long words. */
function literalHeaderCredentials(headers: Record<string, string>): Array<readonly [string, string]> {
  const found: Array<readonly [string, string]> = [];
  for (const [header, value] of Object.entries(headers)) {
    if (headerSecretNames({ [header]: value }).length > 0 || !CREDENTIAL_HEADER.test(header)) continue;
    const words = value.split(/[\s,;]+/).filter((word) => word.length >= CREDENTIAL_WORD_CHARS);
    for (const part of new Set([value, ...words])) if (part.length >= CREDENTIAL_MIN_CHARS) found.push([header, part]);
  }
  return found;
}

/** Thrown errors have their message masked as `mask` would, secrets and URL alike. */
export async function openRegisteredServer(
  server: RegisteredServer,
  openSecrets: SecretOpener,
  options: McpConnectOptions,
): Promise<OpenedServer> {
  const names = headerSecretNames(server.headers);
  const secrets = names.length > 0 ? await openSecrets(names) : new Map();
  const { headers, values } = filledWith(server.headers, server.url, secrets);
  const literal = literalHeaderCredentials(server.headers);
  // What each is, never its value, names it in a refusal.
  const credentials = [
    ...[...values].map(([name, value]) => [`the value of the secret ${name}`, value] as const),
    ...literal.map(([header, value]) => [`the value of its header ${header}`, value] as const),
    ...urlCredentialParts(server.url)
      .filter((part) => part.length >= CREDENTIAL_MIN_CHARS)
      .map((part) => ['a credential of its URL (query, fragment or password)', part] as const),
  ];
  const maskSecrets = secretMasker(values);
  const maskLiteral = valueMasker(literal.map(([header, value]) => [value, `[header ${header}]`] as const));
  const maskUrl = urlCredentialMasker(server.url);
  const mask = (text: string) => maskUrl(maskLiteral(maskSecrets(text)));
  try {
    return { client: await connectMcp({ id: server.id, url: server.url, headers }, options), mask, credentials };
  } catch (error) {
    // The SDK's errors may quote what the server answered.
    if (error instanceof Error) error.message = mask(error.message);
    throw error;
  }
}
