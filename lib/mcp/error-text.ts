// A failed connection or call as users read it (deploy errors, tool errors): the SDK's and the guard's
// words, without the `ip:port` Node appends to socket errors (lib/outbound.ts outboundErrorText).
import { outboundErrorText } from '../outbound.ts';
import { responseTooLarge } from '../response-limits.ts';
import { McpHeaderError } from './headers.ts';
import { loadedMcpSdk } from './sdk.ts';

export function mcpErrorText(error: unknown): string {
  const tooLarge = responseTooLarge(error);
  if (tooLarge) return tooLarge.message;
  if (error instanceof McpHeaderError) return error.message;
  const sdk = loadedMcpSdk();
  if (sdk && (error instanceof sdk.StreamableHTTPError || error instanceof sdk.SseError)) {
    if (error.code && error.code >= 300 && error.code < 400) {
      return (
        `the server answered HTTP ${error.code}, a redirect that is not followed (only redirects within the URL's origin ` +
        'are, at most 5): register the URL it points to'
      );
    }
    return error.code ? `the server answered HTTP ${error.code}` : `the connection failed (${firstLine(error.message)})`;
  }
  const cause = (error as { cause?: unknown })?.cause;
  if (cause instanceof Error) return outboundErrorText(cause);
  return error instanceof Error ? outboundErrorText(error) : String(error);
}

function firstLine(text: string): string {
  return text.split('\n')[0]!.slice(0, 300);
}
