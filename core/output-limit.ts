// What one model step may stream. A provider that streams without end (a user's own base URL may
// point anywhere the outbound guard allows) would otherwise grow a worker's memory for the whole
// activity timeout, on every retry. Output is counted as it arrives: bytes exactly, tokens as one per
// streamed piece of text, reasoning or tool input (a piece is at least one token, so this never
// counts more than the provider would). Past either limit the step stops, and the turn fails at once:
// another attempt would stream the same. Pure: the step (activities/turn/step-stream.ts) feeds it the
// stream's parts.

/** What of a streamed part is counted: its text, its tool input, or its file (the AI SDK's stream parts). */
export interface MeteredPart {
  type: string;
  text?: string;
  delta?: string;
  file?: { uint8Array: Uint8Array };
}

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
  count(part: MeteredPart): string | undefined {
    let size: number;
    switch (part.type) {
      case 'text-delta':
      case 'reasoning-delta':
        size = utf8Bytes(part.text ?? '');
        break;
      case 'tool-input-delta':
        size = utf8Bytes(part.delta ?? '');
        break;
      case 'file':
      case 'reasoning-file':
        size = part.file?.uint8Array.byteLength ?? 0;
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

/** The length of `text` in UTF-8, without encoding it (no Buffer here: core/ runs in workflow code too). */
export function utf8Bytes(text: string): number {
  let bytes = 0;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    // A surrogate pair is one code point of four bytes; a lone surrogate is written as U+FFFD, three bytes.
    else if (code >= 0xd800 && code <= 0xdbff && index + 1 < text.length && isLowSurrogate(text.charCodeAt(index + 1))) {
      bytes += 4;
      index++;
    } else bytes += 3;
  }
  return bytes;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}
