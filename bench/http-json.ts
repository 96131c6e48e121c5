// A timed HTTP request with a body, for benchmarks that send rather than read. node:http rather than
// fetch, so the caller chooses the socket policy (one keep-alive socket for latency, many for load).
import http from 'node:http';

export interface TimedResponse<T> {
  status: number;
  body: T;
  headers: http.IncomingHttpHeaders;
  /** From the call to the last byte of the answer. */
  ms: number;
}

export interface TimedRequest {
  method?: string;
  headers?: http.OutgoingHttpHeaders;
  /** Sent as it is; set the content type in `headers`. */
  body?: string;
  /** The request is destroyed, and the promise rejects with a message naming it, after this long. */
  timeoutMs: number;
}

/** Answers the parsed JSON body (the raw text when it is not JSON). Never throws on a status: callers check it. */
export function timedRequest<T = unknown>(agent: http.Agent, url: string, options: TimedRequest): Promise<TimedResponse<T>> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const headers: http.OutgoingHttpHeaders = { ...options.headers };
    if (options.body !== undefined) headers['content-length'] = Buffer.byteLength(options.body);
    const request = http.request(url, { agent, method: options.method ?? 'GET', headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', fail);
      response.on('end', () => {
        const ms = Number(process.hrtime.bigint() - started) / 1e6;
        clearTimeout(timer);
        const text = Buffer.concat(chunks).toString('utf8');
        let body: unknown = text;
        try {
          body = JSON.parse(text);
        } catch {
          // Not JSON: the caller sees the text in its error message.
        }
        resolve({ status: response.statusCode ?? 0, body: body as T, headers: response.headers, ms });
      });
    });
    const timer = setTimeout(
      () => request.destroy(new Error(`${options.method ?? 'GET'} ${url} did not answer within ${options.timeoutMs} ms`)),
      options.timeoutMs,
    );
    function fail(error: Error) {
      clearTimeout(timer);
      reject(error);
    }
    // Whether the request went out on a kept-alive socket: one the server closed as it was reused fails with
    // ECONNRESET through no fault of the server (Node's `request.reusedSocket`).
    request.on('error', (error: Error) => fail(Object.assign(error, { reusedSocket: request.reusedSocket })));
    request.end(options.body);
  });
}

export function jsonHeaders(auth: Record<string, string>): http.OutgoingHttpHeaders {
  return { ...auth, 'content-type': 'application/json', accept: 'application/json' };
}

/** Throws with the answer in the message unless the status is the expected one. */
export function expectStatus<T>(response: TimedResponse<T>, expected: number, what: string): T {
  if (response.status !== expected) {
    const text = typeof response.body === 'string' ? response.body : JSON.stringify(response.body);
    throw new Error(`${what} answered ${response.status}, expected ${expected}: ${text.slice(0, 500)}`);
  }
  return response.body;
}
