// The tools a remote MCP server offers, as a revision freezes them: names the model providers accept,
// descriptions and input schemas within bounds, so a server cannot make every later request of an
// agent huge or unusable. Anything past a bound fails the deploy with the reason, naming the server,
// and so does a list that carries the value of a header secret (lib/mcp/listing-secrets.ts).
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { JsonObject } from '../../contract/bundle.ts';
import type { ToolServerTool } from '../../contract/tool-servers.ts';
import { secretInListing } from './listing-secrets.ts';

export const REMOTE_TOOL_LIMITS = {
  /** Tools of one server. */
  tools: 128,
  /** Characters of a description the model is shown; the rest is cut. */
  descriptionChars: 4096,
  /** Bytes of one server's tools as JSON (names, descriptions, schemas). */
  listBytes: 256 * 1024,
  /** Pages of `tools/list` read before giving up on a server that never stops paging. */
  pages: 16,
} as const;

/** What OpenAI, Anthropic and OpenRouter all accept as a tool's name. */
export const MODEL_TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

export class RemoteToolListError extends Error {
  override name = 'RemoteToolListError';
}

export interface ListOptions {
  /** Ends the whole listing, every page (the listing's deadline, its caller hanging up). */
  signal: AbortSignal;
  /** Bounds each page's request too, for a caller without a deadline of its own. */
  timeoutMs: number;
  /** The credentials the server was sent, by what they are (lib/mcp/open.ts): a list carrying one is refused. */
  secrets?: Iterable<readonly [string, string]>;
}

/** Every tool of the server, checked and trimmed; throws RemoteToolListError naming what is wrong. */
export async function listRemoteTools(client: Client, options: ListOptions): Promise<ToolServerTool[]> {
  const tools: ToolServerTool[] = [];
  let cursor: string | undefined;
  for (let page = 0; ; page++) {
    if (page >= REMOTE_TOOL_LIMITS.pages) throw new RemoteToolListError(`it lists tools over more than ${REMOTE_TOOL_LIMITS.pages} pages`);
    options.signal.throwIfAborted();
    const listed = await client.listTools(cursor ? { cursor } : {}, { timeout: options.timeoutMs, signal: options.signal });
    // Before anything of the page is read: a refusal must not quote (part of) a secret as a bad name.
    const carried = secretInListing(listed.tools, options.secrets ?? []);
    if (carried) {
      throw new RemoteToolListError(
        `its tool list carries ${carried.name} (at ${pointerShown(carried.where, page)}), ` +
          'which the service sends it; a tool list that quotes a credential is refused',
      );
    }
    for (const tool of listed.tools) tools.push(frozenTool(tool));
    if (tools.length > REMOTE_TOOL_LIMITS.tools) throw new RemoteToolListError(`it offers more than ${REMOTE_TOOL_LIMITS.tools} tools`);
    cursor = listed.nextCursor;
    if (!cursor) break;
  }
  const names = new Set<string>();
  for (const tool of tools) {
    if (names.has(tool.name)) throw new RemoteToolListError(`it lists the tool "${tool.name}" twice`);
    names.add(tool.name);
  }
  const bytes = Buffer.byteLength(JSON.stringify(tools), 'utf8');
  if (bytes > REMOTE_TOOL_LIMITS.listBytes) {
    throw new RemoteToolListError(`its tools take ${bytes} bytes of JSON, more than ${REMOTE_TOOL_LIMITS.listBytes}`);
  }
  return tools;
}

/** Where in the listing, as a pointer into the page's `tools`, cut short: keys are the server's. */
function pointerShown(where: string, page: number): string {
  const pointer = `/tools${where}`;
  return `${pointer.length > 200 ? `${pointer.slice(0, 199)}…` : pointer}${page > 0 ? ` of page ${page + 1}` : ''}`;
}

function frozenTool(tool: { name: string; title?: string; description?: string; inputSchema: unknown }): ToolServerTool {
  if (!MODEL_TOOL_NAME.test(tool.name)) {
    throw new RemoteToolListError(
      `its tool name ${JSON.stringify(tool.name.slice(0, 80))} is not one models accept (letters, digits, _ and -, at most 64)`,
    );
  }
  const schema = tool.inputSchema;
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema) || (schema as JsonObject).type !== 'object') {
    throw new RemoteToolListError(`the input schema of its tool "${tool.name}" is not a JSON Schema of type "object"`);
  }
  const description = tool.description ?? tool.title ?? '';
  return {
    name: tool.name,
    description:
      description.length > REMOTE_TOOL_LIMITS.descriptionChars ? description.slice(0, REMOTE_TOOL_LIMITS.descriptionChars) : description,
    inputSchema: schema as JsonObject,
  };
}
