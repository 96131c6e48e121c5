// A registered server connected to as its owner: its header secrets opened (only those it names), held to
// their hosts, and the connection made through the guard. Shared by deploy (listing tools), GET /mcp/<id>
// and the activity that calls a tool, so all three send the same headers the same way.
import { connectMcp, type McpConnectOptions, type McpEndpoint } from './connect.ts';
import { filledWith, headerSecretNames } from './headers.ts';
import { urlCredentialMasker, urlCredentialParts } from './url-redaction.ts';
import { secretMasker, valueMasker } from '../secret-mask.ts';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { BearerSource } from './oauth/bearer.ts';
import type { McpOAuthSettings } from './oauth/types.ts';
import { mcpSdk } from './sdk.ts';

export interface RegisteredServer {
  id: string;
  url: string;
  headers: Record<string, string>;
  /** Signed in to with OAuth: the user's tokens go with every request (a `BearerSource` must be given). */
  auth?: McpOAuthSettings | null;
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
  bearer?: BearerSource,
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
  // The sign-in's tokens, as this connection learns them (a refresh may bring new ones).
  const maskTokens = (text: string) =>
    valueMasker((bearer?.known() ?? []).map((token) => [token, '[token of its sign-in]'] as const))(text);
  const mask = (text: string) => maskTokens(maskUrl(maskLiteral(maskSecrets(text))));
  const tokenCredentials = () => (bearer?.known() ?? []).map((token) => ['a token of its sign-in', token] as const);
  try {
    const endpoint = { id: server.id, url: server.url, headers };
    const client = server.auth?.type === 'oauth' ? await connectSignedIn(endpoint, options, bearer) : await connectMcp(endpoint, options);
    return { client, mask, credentials: [...credentials, ...tokenCredentials()] };
  } catch (error) {
    // The SDK's errors may quote what the server answered.
    if (error instanceof Error) error.message = mask(error.message);
    throw error;
  }
}

/**
 * Connects with the user's access token; a 401 gets one refresh and one more try (the token may have been
 * revoked early), and a second 401 means the sign-in is no good: the user is asked to sign in again.
 */
async function connectSignedIn(endpoint: McpEndpoint, options: McpConnectOptions, bearer: BearerSource | undefined): Promise<Client> {
  if (!bearer) throw new Error(`The MCP server "${endpoint.id}" is signed in to with OAuth, and no tokens were given to connect with`);
  const { StreamableHTTPError, SseError } = await mcpSdk();
  // A 401 from either transport (a server on the older HTTP+SSE one answers its stream's GET with it).
  const refused = (error: unknown) => (error instanceof StreamableHTTPError || error instanceof SseError) && error.code === 401;
  const withToken = (token: string) => ({ ...endpoint, headers: { ...endpoint.headers, Authorization: `Bearer ${token}` } });
  const first = await bearer.current();
  try {
    return await connectMcp(withToken(first), options);
  } catch (error) {
    if (!refused(error)) throw error;
  }
  const next = await bearer.afterRefusal(first);
  try {
    return await connectMcp(withToken(next), options);
  } catch (error) {
    if (!refused(error)) throw error;
    throw await bearer.refusedForGood(next);
  }
}
