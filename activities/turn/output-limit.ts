// What one model step may stream. A provider that streams without end (a user's own base URL may
// point anywhere the outbound guard allows) would otherwise grow a worker's memory for the whole
// activity timeout, on every retry. Output is counted as it arrives: bytes exactly, tokens as one per
// streamed piece of text, reasoning or tool input (a piece is at least one token, so this never
// counts more than the provider would). Past either limit the step stops, and the turn fails at once:
// another attempt would stream the same.
import type { ModelCallPart } from '../model/stream-call.ts';

/** The error type of a step stopped by these limits; not retryable. */

export interface OutputLimits {
  maxTokens: number;
  maxBytes: number;
}

export class OutputMeter {
  private tokens = 0;
  private bytes = 0;

  constructor(private readonly limits: OutputLimits) {}

  /** Output tokens written so far, estimated: four bytes a token, and never fewer than the pieces streamed. */
  writtenTokens(): number {
    return Math.max(this.tokens, Math.ceil(this.bytes / 4));
  }

  /** Counts one stream part; returns what the turn's error will say once this part goes past a limit. */
  count(part: ModelCallPart): string | undefined {
    let size: number;
    switch (part.type) {
      case 'text-delta':
      case 'reasoning-delta':
        size = Buffer.byteLength(part.text);
        break;
      case 'tool-input-delta':
        size = Buffer.byteLength(part.delta);
        break;
      case 'file':
      case 'reasoning-file':
        size = part.file.uint8Array.byteLength;
        break;
      default:
        return undefined;
    }
    if (size === 0) return undefined;
    this.tokens++;
    this.bytes += size;
    if (this.bytes > this.limits.maxBytes) {
      return `The model's reply went past ${this.limits.maxBytes} bytes in one step (MODEL_STEP_MAX_OUTPUT_BYTES); it was stopped there`;
    }
    if (this.tokens > this.limits.maxTokens) {
      return `The model's reply went past ${this.limits.maxTokens} output tokens in one step (MODEL_STEP_MAX_OUTPUT_TOKENS); it was stopped there`;
    }
    return undefined;
  }
}
