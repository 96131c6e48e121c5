// What an answer from elsewhere may make the service hold. A model provider's base URL may be a
// user's secret, and the AI SDK reads a provider's error body whole and holds an event-stream line
// until its newline comes: without a count, a server that sends `data: ` and then endless bytes (or a
// gzip bomb, or a 200 MiB error page) grows a worker's heap until it dies, on every retry, for every
// user on that worker. So the bytes of a body are counted as they are read, after decompression,
// and past a limit the body ends with a ResponseTooLargeError, which closes the connection.
// Another attempt would read the same answer, so callers treat the error as final.

export class ResponseTooLargeError extends Error {
  override name = 'ResponseTooLargeError';
  /**
   * @param detail what went past its limit ("sent a line longer than 2 bytes"), read after `what`
   * @param what who sent it, as the reader knows it
   */
  constructor(
    readonly detail: string,
    what = 'The answer',
  ) {
    super(`${what} ${detail}; it was cut off there`);
  }
}

export interface BodyLimits {
  /** Bytes of the whole body, decompressed. */
  maxBytes: number;
  /** Bytes between two line ends (CR or LF), for line protocols (event streams); absent: unchecked. */
  maxLineBytes?: number;
  /** What sent the body, named in the error ("The model provider's stream"). */
  what: string;
  /** Where the limit comes from, named in the error so an operator knows what to raise. */
  setting?: string;
}

const LF = 10;
const CR = 13;

/** Counts a body's bytes and its longest line as chunks arrive; says why it must stop, once it must. */
export class BodyMeter {
  private bytes = 0;
  private line = 0;

  constructor(private readonly limits: BodyLimits) {}

  /** The error to end the body with when this chunk goes past a limit, else undefined. */
  count(chunk: Uint8Array): ResponseTooLargeError | undefined {
    this.bytes += chunk.byteLength;
    if (this.bytes > this.limits.maxBytes) return this.tooLarge(`went past ${this.limits.maxBytes} bytes`);
    const maxLine = this.limits.maxLineBytes;
    if (maxLine === undefined) return undefined;
    let start = 0;
    for (;;) {
      const end = nextLineEnd(chunk, start);
      if (end === -1) {
        this.line += chunk.byteLength - start;
        break;
      }
      this.line += end - start;
      if (this.line > maxLine) break;
      this.line = 0;
      start = end + 1;
    }
    if (this.line > maxLine) return this.tooLarge(`sent a line longer than ${maxLine} bytes`);
    return undefined;
  }

  private tooLarge(what: string): ResponseTooLargeError {
    const setting = this.limits.setting ? ` (the limit follows ${this.limits.setting})` : '';
    return new ResponseTooLargeError(`${what}${setting}`, this.limits.what);
  }
}

function nextLineEnd(chunk: Uint8Array, from: number): number {
  const lf = chunk.indexOf(LF, from);
  const cr = chunk.indexOf(CR, from);
  if (lf === -1) return cr;
  if (cr === -1) return lf;
  return Math.min(lf, cr);
}

/**
 * The body, ended with a ResponseTooLargeError (and the source cancelled, which closes its
 * connection) once it goes past `limits`. A ResponseTooLargeError the source itself ends with (a
 * decompression guard's) is passed on naming `limits.what`.
 */
export function limitBody(body: ReadableStream<Uint8Array>, limits: BodyLimits): ReadableStream<Uint8Array> {
  const meter = new BodyMeter(limits);
  const reader = body.getReader();
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        let next: Awaited<ReturnType<typeof reader.read>>;
        try {
          next = await reader.read();
        } catch (error) {
          const tooLarge = responseTooLarge(error);
          throw tooLarge ? new ResponseTooLargeError(tooLarge.detail, limits.what) : error;
        }
        if (next.done) return controller.close();
        const error = meter.count(next.value);
        if (!error) return controller.enqueue(next.value);
        controller.error(error);
        await reader.cancel(error).catch(() => {});
      },
      cancel: (reason) => reader.cancel(reason),
    },
    // Nothing read ahead: a chunk is pulled when the reader asks for one.
    { highWaterMark: 0 },
  );
}

export interface FetchLimits {
  /** A successful (2xx) answer's body. */
  body: BodyLimits;
  /** Any other answer's body: read whole by SDKs to build their error, so kept small. */
  errorBody: BodyLimits;
}

/** `fetch` whose answers' bodies are limited: a 2xx body by `limits.body`, any other by `limits.errorBody`. */
export function limitedFetch(fetch: typeof globalThis.fetch, limits: FetchLimits): typeof globalThis.fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    if (!response.body) return response;
    const body = limitBody(response.body, response.ok ? limits.body : limits.errorBody);
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}

/** The ResponseTooLargeError somewhere in an error's causes (SDKs wrap what a body's stream ended with). */
export function responseTooLarge(error: unknown): ResponseTooLargeError | undefined {
  let current = error;
  for (let depth = 0; depth < 8 && current !== null && typeof current === 'object'; depth++) {
    if (current instanceof ResponseTooLargeError) return current;
    const next = current as { cause?: unknown; lastError?: unknown };
    current = next.cause ?? next.lastError;
  }
  return undefined;
}
