// mcps ls|add|show|rm: the tool servers a bundle names in `mcps`, built-in and remote. Registering
// connects to nothing; `show` does, so it is how a person checks a URL and its headers.
import type { Command } from 'commander';
import { contextOf } from '../context.ts';
import { UsageError } from '../exit-codes.ts';
import { withExamples } from '../help.ts';
import { age, note, printFields, printJson, printLine, printTable, warn } from '../output.ts';
import { withSpinner } from '../spinner.ts';
import { out } from '../style.ts';
import { terminalText } from '../terminal-text.ts';

/** Header names whose value is a credential: one written literally is stored as it is, so we say so. */
const CREDENTIAL_HEADER = /authorization|token|key|secret|password|cookie/i;
const SECRET_REFERENCE = /\{\{\s*secrets\.[^}]+\}\}/;

export function registerMcps(program: Command): void {
  const mcps = program.command('mcps').description('Tool servers your bundles name in `mcps`: the built-in ones and remote MCP servers');
  withExamples(mcps, [
    'agent-service mcps ls',
    "agent-service mcps add tickets https://mcp.example.com/mcp --header 'Authorization: Bearer {{secrets.TICKETS_TOKEN}}'",
    'agent-service mcps show tickets',
  ]);

  withExamples(
    mcps
      .command('ls')
      .alias('list')
      .description('The built-in tool servers, then the remote MCP servers you registered (never a header value)')
      .action(async (_options: object, command: Command) => {
        const context = contextOf(command);
        const servers = await context.client().mcps.list();
        if (context.json) return printJson(servers);
        printTable(
          ['ID', 'KIND', 'URL', 'HEADERS', 'UPDATED', 'DESCRIPTION'],
          servers.map((server) =>
            server.kind === 'builtin'
              ? [server.id, 'built-in', '-', '-', '-', firstLine(server.description)]
              : [
                  server.id,
                  'remote',
                  server.url,
                  namesOf(server.headerNames, ',') || '-',
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
      .action(async (id: string, url: string, options: { header?: string[]; description?: string }, command: Command) => {
        const context = contextOf(command);
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
        });
        if (context.json) return printJson(stored);
        note(
          `Saved ${stored.id} (${terminalText(stored.url)}). Check it with \`agent-service mcps show ${stored.id}\`; name it in a bundle's \`mcps\`.`,
        );
      }),
    [
      'agent-service mcps add docs https://mcp.example.com/mcp --description "Product docs"',
      'printf %s "$TOKEN" | agent-service secrets set TICKETS_TOKEN --host mcp.example.com',
      "agent-service mcps add tickets https://mcp.example.com/mcp -H 'Authorization: Bearer {{secrets.TICKETS_TOKEN}}'",
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
