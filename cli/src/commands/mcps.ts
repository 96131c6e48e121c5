// mcps ls|add|show|rm|connect|disconnect: the tool servers a bundle names in `mcps`, built-in and remote.
// Registering connects to nothing; `show` does, so it is how a person checks a URL and its headers. A
// server registered with --oauth is signed in to once per user: `connect` answers the URL to open in a
// browser (and with --open opens it), `disconnect` signs out.
import { spawn } from 'node:child_process';
import type { McpAuthBody, McpConnectionView } from '@agent-service/sdk';
import type { Command } from 'commander';
import { contextOf } from '../context.ts';
import { UsageError } from '../exit-codes.ts';
import { withExamples } from '../help.ts';
import { age, note, printFields, printJson, printLine, printTable, warn } from '../output.ts';
import { withSpinner } from '../spinner.ts';
import { err, out } from '../style.ts';
import { terminalText } from '../terminal-text.ts';

/** Header names whose value is a credential: one written literally is stored as it is, so we say so. */
const CREDENTIAL_HEADER = /authorization|token|key|secret|password|cookie/i;
const SECRET_REFERENCE = /\{\{\s*secrets\.[^}]+\}\}/;
/** A secret's name as `auth.clientSecret` may reference it (the service's pattern). */
const SECRET_KEY = /^[A-Za-z0-9_]{1,100}$/;

export function registerMcps(program: Command): void {
  const mcps = program.command('mcps').description('Tool servers your bundles name in `mcps`: the built-in ones and remote MCP servers');
  withExamples(mcps, [
    'agent-service mcps ls',
    "agent-service mcps add tickets https://mcp.example.com/mcp --header 'Authorization: Bearer {{secrets.TICKETS_TOKEN}}'",
    'agent-service mcps show tickets',
    'agent-service mcps add linear https://mcp.linear.app/mcp --oauth && agent-service mcps connect linear --open',
  ]);

  withExamples(
    mcps
      .command('ls')
      .alias('list')
      .description(
        'The built-in tool servers, then the remote MCP servers you registered (never a header value); SIGN-IN is your sign-in ' +
          'to one registered with --oauth: connected, needs-sign-in or not-connected',
      )
      .action(async (_options: object, command: Command) => {
        const context = contextOf(command);
        const servers = await context.client().mcps.list();
        if (context.json) return printJson(servers);
        printTable(
          ['ID', 'KIND', 'URL', 'HEADERS', 'SIGN-IN', 'UPDATED', 'DESCRIPTION'],
          servers.map((server) =>
            server.kind === 'builtin'
              ? [server.id, 'built-in', '-', '-', '-', '-', firstLine(server.description)]
              : [
                  server.id,
                  'remote',
                  server.url,
                  namesOf(server.headerNames, ',') || '-',
                  signInOf(server.connection),
                  age(server.updatedAt),
                  server.description && firstLine(server.description),
                ],
          ),
        );
      }),
    ['agent-service mcps ls', 'agent-service mcps ls --json | jq -r \'.[] | select(.kind == "remote") | .id\''],
  );

  withExamples(
    mcps
      .command('add')
      .description('Register (or replace) a remote MCP server; nothing connects until a deploy names it (or `mcps show`)')
      .argument('<id>', 'how bundles name it in `mcps`: a lower-case letter, then letters, digits, _ or -')
      .argument('<url>', 'its MCP endpoint (Streamable HTTP, or the older HTTP+SSE)')
      .option(
        '-H, --header <header>',
        "'Name: value', sent with every request (repeat for more). Values are stored as written and never shown again: " +
          'do not write a credential here; store it with `secrets set` (with --host for this server) and write {{secrets.KEY}}',
        (header: string, headers: string[] = []) => [...headers, header],
      )
      .option('-d, --description <text>', 'what the server is for')
      .option('--oauth', 'each user signs in with OAuth (`mcps connect <id>`); the service keeps and refreshes their tokens')
      .option(
        '--scope <scope>',
        "a scope to ask for (repeat for more; needs --oauth); by default what the server's metadata names",
        (scope: string, scopes: string[] = []) => [...scopes, scope],
      )
      .option(
        '--client-id <id>',
        'a client you registered at the authorization server yourself (redirect URI: <service URL>/mcp-oauth/callback; needs --oauth); ' +
          'without it the service registers itself',
      )
      .option('--client-secret-ref <KEY>', "the secret holding that client's secret, stored as {{secrets.KEY}} (needs --client-id)")
      .action(async (id: string, url: string, options: AddOptions, command: Command) => {
        const context = contextOf(command);
        const auth = authOf(options);
        const headers = parseHeaders(options.header ?? []);
        for (const [name, value] of Object.entries(headers)) {
          if (CREDENTIAL_HEADER.test(name) && !SECRET_REFERENCE.test(value)) {
            warn(`the ${name} header is stored as written; a credential belongs in a secret, written {{secrets.KEY}}`);
          }
        }
        const stored = await context.client().mcps.put(id, {
          url,
          ...(options.header ? { headers } : {}),
          ...(options.description !== undefined ? { description: options.description } : {}),
          ...(auth ? { auth } : {}),
        });
        if (context.json) return printJson(stored);
        note(
          stored.auth
            ? `Saved ${stored.id} (${terminalText(stored.url)}). Sign in with \`agent-service mcps connect ${stored.id}\`; name it in a bundle's \`mcps\`.`
            : `Saved ${stored.id} (${terminalText(stored.url)}). Check it with \`agent-service mcps show ${stored.id}\`; name it in a bundle's \`mcps\`.`,
        );
      }),
    [
      'agent-service mcps add docs https://mcp.example.com/mcp --description "Product docs"',
      'printf %s "$TOKEN" | agent-service secrets set TICKETS_TOKEN --host mcp.example.com',
      "agent-service mcps add tickets https://mcp.example.com/mcp -H 'Authorization: Bearer {{secrets.TICKETS_TOKEN}}'",
      'agent-service mcps add linear https://mcp.linear.app/mcp --oauth',
      'agent-service mcps add desk https://mcp.example.com/mcp --oauth --scope tickets:read --client-id desk-client --client-secret-ref DESK_CLIENT_SECRET',
    ],
  );

  withExamples(
    mcps
      .command('show')
      .description('One tool server and its tools; a remote one is connected to and listed now (a key with agents:write)')
      .argument('<id>')
      .action(async (id: string, _options: object, command: Command) => {
        const context = contextOf(command);
        const client = context.client();
        const server = await withSpinner(`Connecting to ${id}`, () => client.mcps.retrieve(id), { quiet: context.json });
        if (context.json) return printJson(server);
        printFields(
          server.kind === 'builtin'
            ? [
                ['id', server.id],
                ['kind', 'built-in'],
                ['description', server.description],
              ]
            : [
                ['id', server.id],
                ['kind', 'remote'],
                ['url', server.url],
                ['headers', namesOf(server.headerNames, ', ') || null],
                ...authFields(server.auth, server.connection),
                ['description', server.description],
                ['updated', `${server.updatedAt} (${age(server.updatedAt)})`],
              ],
        );
        const tools = server.tools ?? [];
        printLine(out().bold(`\nTools (${tools.length})`));
        // Names and descriptions are the server's own words: printed as text, never as terminal commands.
        for (const tool of tools) {
          const description = tool.description ? `  ${out().dim(firstLine(tool.description))}` : '';
          printLine(`  ${terminalText(tool.name)}${description}`);
        }
      }),
    ['agent-service mcps show tickets', 'agent-service mcps show tickets --json | jq -r ".tools[].name"'],
  );

  withExamples(
    mcps
      .command('rm')
      .alias('delete')
      .description('Remove a remote MCP server; agents deployed with it keep its tools, whose calls then fail until it is registered again')
      .argument('<id>')
      .action(async (id: string, _options: object, command: Command) => {
        const context = contextOf(command);
        await context.client().mcps.delete(id);
        if (context.json) return printJson({ deleted: id });
        note(`Deleted ${id}.`);
      }),
    ['agent-service mcps rm tickets'],
  );

  withExamples(
    mcps
      .command('connect')
      .description(
        'Sign in to a remote MCP server registered with --oauth: prints the URL to open in a browser as yourself; ' +
          '`mcps ls` shows it connected once you did (a key with agents:write)',
      )
      .argument('<id>')
      .option('--open', "open the URL in this machine's browser too (xdg-open, open or start; a failure to open is ignored)")
      .action(async (id: string, options: { open?: boolean }, command: Command) => {
        const context = contextOf(command);
        const started = await context.client().mcps.connect(id);
        if (context.json) printJson(started);
        else {
          // The URL is the result (stdout, for a script or a pipe); what to do with it is a note.
          const minutes = Math.max(1, Math.round((Date.parse(started.expiresAt) - Date.now()) / 60_000));
          note(`Open this URL in a browser to sign in to ${id}:`);
          printLine(terminalText(started.authorizationUrl));
          note(err().dim(`The link expires in ${minutes} minutes. Then \`agent-service mcps ls\` shows ${id} connected.`));
        }
        if (options.open) openInBrowser(started.authorizationUrl);
      }),
    ['agent-service mcps connect linear', 'agent-service mcps connect linear --open'],
  );

  withExamples(
    mcps
      .command('disconnect')
      .description(
        'Sign out of a remote MCP server: your tokens are revoked at its authorization server (where it offers that) and forgotten',
      )
      .argument('<id>')
      .action(async (id: string, _options: object, command: Command) => {
        const context = contextOf(command);
        const { revoked } = await context.client().mcps.disconnect(id);
        if (context.json) return printJson({ disconnected: id, revoked });
        note(
          revoked
            ? `Signed out of ${id}: the authorization server confirmed the revocation.`
            : `Signed out of ${id}: the tokens are forgotten here, but the authorization server did not confirm their revocation.`,
        );
      }),
    ['agent-service mcps disconnect linear'],
  );
}

interface AddOptions {
  header?: string[];
  description?: string;
  oauth?: boolean;
  scope?: string[];
  clientId?: string;
  clientSecretRef?: string;
}

/** `auth` from --oauth and its options; an option of it without --oauth (or a secret without a client) is a usage error. */
function authOf(options: AddOptions): McpAuthBody | undefined {
  if (!options.oauth) {
    const stray = [
      options.scope && '--scope',
      options.clientId !== undefined && '--client-id',
      options.clientSecretRef !== undefined && '--client-secret-ref',
    ].filter(Boolean);
    if (stray.length) throw new UsageError(`${stray.join(', ')} ${stray.length === 1 ? 'needs' : 'need'} --oauth`);
    return undefined;
  }
  if (options.clientSecretRef !== undefined && options.clientId === undefined) {
    throw new UsageError('--client-secret-ref needs --client-id: the secret is that client’s');
  }
  let clientSecret: string | undefined;
  if (options.clientSecretRef !== undefined) {
    // The name of a secret, or the reference written out: stored as {{secrets.KEY}} either way.
    const key = /^\{\{\s*secrets\.([^}\s]+)\s*\}\}$/.exec(options.clientSecretRef)?.[1] ?? options.clientSecretRef;
    if (!SECRET_KEY.test(key)) {
      throw new UsageError(
        `--client-secret-ref takes the name of one of your secrets (letters, digits, _), not "${options.clientSecretRef}": the value goes in \`secrets set\``,
      );
    }
    clientSecret = `{{secrets.${key}}}`;
  }
  return {
    type: 'oauth',
    ...(options.scope ? { scopes: options.scope } : {}),
    ...(options.clientId !== undefined ? { clientId: options.clientId } : {}),
    ...(clientSecret ? { clientSecret } : {}),
  };
}

/** The SIGN-IN column: the status of your sign-in, or - for a server reached with its headers alone. */
function signInOf(connection: McpConnectionView): string {
  return connection ? connection.status : '-';
}

/** `show`'s lines about signing in, for a server with `auth` only. */
function authFields(auth: McpAuthBody | null, connection: McpConnectionView): Array<[string, string | null]> {
  if (!auth) return [];
  const client = auth.clientId
    ? `client ${auth.clientId}${auth.clientSecret ? ` (secret ${auth.clientSecret})` : ''}`
    : 'registered by the service';
  const fields: Array<[string, string | null]> = [
    ['auth', `oauth, ${client}${auth.scopes?.length ? `, scopes ${auth.scopes.join(' ')}` : ''}`],
    ['sign-in', connection?.status ?? 'not-connected'],
  ];
  if (connection?.reason) fields.push(['reason', connection.reason]);
  if (connection?.status === 'connected') {
    if (connection.scopes.length) fields.push(['granted', connection.scopes.join(' ')]);
    if (connection.connectedAt) fields.push(['connected', `${connection.connectedAt} (${age(connection.connectedAt)})`]);
    if (connection.expiresAt) fields.push(['token expires', `${connection.expiresAt} (refreshed before then)`]);
  }
  return fields;
}

/**
 * Hands `url` to the platform's opener, detached, never through a shell but Windows' own `start`; only an
 * http(s) URL, and any failure (no opener, no display) is ignored: the URL is printed anyway.
 */
function openInBrowser(given: string): void {
  let parsed: URL;
  try {
    parsed = new URL(given);
  } catch {
    return;
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return;
  const url = parsed.href;
  const [file, args, verbatim] =
    process.platform === 'win32'
      ? // `start` is cmd's; the empty title keeps the quoted URL from being taken for one. A serialized URL holds no `"`.
        (['cmd', ['/d', '/s', '/c', `"start "" "${url}""`], true] as const)
      : process.platform === 'darwin'
        ? (['open', [url], false] as const)
        : (['xdg-open', [url], false] as const);
  try {
    const child = spawn(file, [...args], { detached: true, stdio: 'ignore', windowsVerbatimArguments: verbatim });
    child.on('error', () => {});
    child.unref();
  } catch {
    // Nothing to open with: the URL is printed.
  }
}

/** `Name: value` lines as a header object; a line without a name, or a name given twice, is a usage error. */
export function parseHeaders(lines: readonly string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  const seen = new Set<string>();
  for (const line of lines) {
    const colon = line.indexOf(':');
    const name = colon === -1 ? '' : line.slice(0, colon).trim();
    if (!name) throw new UsageError(`A header is 'Name: value', not "${line}"`);
    if (seen.has(name.toLowerCase())) throw new UsageError(`The header ${name} is given twice`);
    seen.add(name.toLowerCase());
    headers[name] = line.slice(colon + 1).trim();
  }
  return headers;
}

/** Header names in a stable order (the service keeps them as an object, whose order is its own). */
function namesOf(names: readonly string[], separator: string): string {
  return [...names].sort((a, b) => a.localeCompare(b)).join(separator);
}

function firstLine(text: string): string {
  const line = terminalText(text).split('\n', 1)[0]!;
  return line.length > 100 ? `${line.slice(0, 99)}…` : line;
}
