// A failed connection or call as users read it (deploy errors, tool errors): the SDK's and the guard's
// words, without the `ip:port` Node appends to socket errors (lib/outbound.ts outboundErrorText).
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { SseError } from '@modelcontextprotocol/sdk/client/sse.js';
import { outboundErrorText } from '../outbound.ts';
import { responseTooLarge } from '../response-limits.ts';
import { McpHeaderError } from './headers.ts';

export function mcpErrorText(error: unknown): string {
  const tooLarge = responseTooLarge(error);
  if (tooLarge) return tooLarge.message;
  if (error instanceof McpHeaderError) return error.message;
  if (error instanceof StreamableHTTPError || error instanceof SseError) {
    return error.code ? `the server answered HTTP ${error.code}` : `the connection failed (${firstLine(error.message)})`;
  }
  const cause = (error as { cause?: unknown })?.cause;
  if (cause instanceof Error) return outboundErrorText(cause);
  return error instanceof Error ? outboundErrorText(error) : String(error);
}

function firstLine(text: string): string {
  return text.split('\n')[0]!.slice(0, 300);
}
