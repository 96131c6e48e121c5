// One call of a remote MCP server's tool, and its result as the model reads it. What the model can act
// on (the tool's own error, a refusal, a timeout, an answer too large) is an outcome with `isError`;
// only a server that cannot be reached throws, so the activity can try again with the same key.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { responseTooLarge } from '../response-limits.ts';
import { mcpSdk } from './sdk.ts';

export interface RemoteCallOutcome {
  output: unknown;
  isError: boolean;
}

export interface RemoteCallOptions {
  timeoutMs: number;
  /** Sent in the request's `_meta` (docs/tools.md, "Exactly-once tool effects"). */
  idempotencyKey?: string;
  signal?: AbortSignal;
}

/** The `_meta` key that carries a call's idempotency key to the server. */
export const IDEMPOTENCY_META_KEY = 'idempotencyKey';

export async function callRemoteTool(
  client: Client,
  serverId: string,
  name: string,
  input: unknown,
  options: RemoteCallOptions,
): Promise<RemoteCallOutcome> {
  const server = `The MCP server "${serverId}"`;
  const { ErrorCode, McpError } = await mcpSdk();
  try {
    const result = await client.callTool(
      {
        name,
        arguments: (input ?? {}) as Record<string, unknown>,
        ...(options.idempotencyKey ? { _meta: { [IDEMPOTENCY_META_KEY]: options.idempotencyKey } } : {}),
      },
      undefined,
      { timeout: options.timeoutMs, maxTotalTimeout: options.timeoutMs, ...(options.signal ? { signal: options.signal } : {}) },
    );
    const text = resultText(result as CallResult);
    return result.isError === true
      ? { output: text || `${server} reported an error with no text.`, isError: true }
      : { output: text, isError: false };
  } catch (error) {
    const tooLarge = responseTooLarge(error);
    if (tooLarge) return { output: tooLarge.message, isError: true };
    if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) {
      return {
        output: `${server} did not answer within ${options.timeoutMs} ms; the call may or may not have taken effect.`,
        isError: true,
      };
    }
    // A JSON-RPC error answer: the server is up and said no (unknown tool, invalid arguments, its own failure).
    if (error instanceof McpError && error.code !== ErrorCode.ConnectionClosed) {
      return { output: `${server} refused the call: ${error.message}`, isError: true };
    }
    throw error;
  }
}

interface CallResult {
  content?: ContentItem[];
  structuredContent?: unknown;
  toolResult?: unknown;
  isError?: boolean;
}

type ContentItem =
  | { type: 'text'; text: string }
  | { type: 'image' | 'audio'; data: string; mimeType: string }
  | { type: 'resource'; resource: { uri: string; mimeType?: string; text?: string; blob?: string } }
  | { type: 'resource_link'; uri: string; name?: string; mimeType?: string }
  | { type: string };

/**
 * Text as is; an embedded text resource with its URI; images, audio and binary resources described by
 * type and size (the model is told they came, not shown them); structured content as JSON when there
 * is no text; an older server's `toolResult` likewise.
 */
export function resultText(result: CallResult): string {
  const parts = (result.content ?? []).map(contentText);
  const hasText = (result.content ?? []).some((item) => item.type === 'text' || item.type === 'resource');
  if (!hasText && result.structuredContent !== undefined) parts.push(JSON.stringify(result.structuredContent));
  if (result.content === undefined && result.toolResult !== undefined) parts.push(JSON.stringify(result.toolResult));
  return parts.join('\n');
}

function contentText(item: ContentItem): string {
  switch (item.type) {
    case 'text':
      return (item as { text: string }).text;
    case 'image':
    case 'audio': {
      const media = item as { data: string; mimeType: string };
      return `[${item.type} ${media.mimeType}, ${base64Bytes(media.data)} bytes: not shown]`;
    }
    case 'resource': {
      const { resource } = item as { resource: { uri: string; mimeType?: string; text?: string; blob?: string } };
      if (typeof resource.text === 'string') return `[resource ${resource.uri}]\n${resource.text}`;
      return `[resource ${resource.uri}${resource.mimeType ? ` ${resource.mimeType}` : ''}, ${base64Bytes(resource.blob ?? '')} bytes: not shown]`;
    }
    case 'resource_link': {
      const link = item as { uri: string; name?: string };
      return `[resource link ${link.uri}${link.name ? ` (${link.name})` : ''}]`;
    }
    default:
      return `[${item.type} content: not shown]`;
  }
}

function base64Bytes(data: string): number {
  return Math.floor((data.replace(/=+$/, '').length * 3) / 4);
}
