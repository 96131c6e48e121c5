// Every request the service sends to an address a user chose (webhook receivers now; channels and
// tools later) goes through here. Private, loopback, link-local and metadata addresses are refused
// (lib/refused-addresses.ts) unless OUTBOUND_ALLOW_CIDRS lists them: literal IPs before connecting,
// host names in the DNS lookup of the socket itself, so the address checked is the address connected
// to and a name that re-resolves to 127.0.0.1 between a check and the request (DNS rebinding) cannot
// slip through. Redirects are never followed: a 3xx is an answer like any other.
//
// `fetch` is the same guard behind the WHATWG fetch signature, for SDKs that take a `fetch` option
// (model providers pointed at a user's base URL). It is built on node:http rather than an undici
// Agent because undici is not a dependency (Node bundles it without exposing its Agent).
import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP, type BlockList, type LookupFunction } from 'node:net';
import { Readable, Transform } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import zlib from 'node:zlib';
import { parseCidrList, refusedRange } from './refused-addresses.ts';
import { ResponseTooLargeError } from './response-limits.ts';

export class OutboundRequestError extends Error {
  override name = 'OutboundRequestError';
}

/** The URL is not an absolute http(s) URL the service may call. */
export class OutboundUrlError extends OutboundRequestError {
  override name = 'OutboundUrlError';
}

/**
 * The destination is (or resolved to) a refused address. The message names the kind of range only:
 * it reaches delivery logs and answers that users read, and a resolved address would show them the
 * service's own network. `address` and `range` are for the server's log.
 */
export class OutboundAddressRefusedError extends OutboundRequestError {
  override name = 'OutboundAddressRefusedError';
  constructor(
    readonly address: string,
    readonly range: string,
  ) {
    super(
      `Refused: the receiver's address is ${range.replace(/\s*\(.*\)$/, '')}, not public ` +
        '(private, loopback and link-local addresses are refused unless OUTBOUND_ALLOW_CIDRS allows them)',
    );
  }
}

export class OutboundTimeoutError extends OutboundRequestError {
  override name = 'OutboundTimeoutError';
}

/**
 * A failed outbound request as users may read it (webhook delivery logs, channel dispatch records): a
 * socket error by its syscall and code, never the `ip:port` Node appends to its message, which would
 * show them an address the service resolved (maybe one of its own network).
 */
export function outboundErrorText(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const { code, syscall } = error as NodeJS.ErrnoException;
  if (typeof code === 'string' && typeof syscall === 'string') return `${error.name}: ${syscall} ${code}`;
  return `${error.name}: ${error.message}`;
}

export interface OutboundRequest {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** The whole exchange: connect, send, and reading the status and the body snippet. */
  timeoutMs: number;
  /** Bytes of the response body kept, decompressed (default 1024); the rest is not read. */
  maxBodyBytes?: number;
}

export interface OutboundResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  bodySnippet: string;
}

export interface OutboundClient {
  /** Why this IP may not be contacted, or undefined when it may (allowed, public, or not an IP). */
  refusal(address: string): string | undefined;
  /** Parses and checks a URL without any network access: http(s), no credentials, no refused literal IP. */
  checkUrl(url: string): URL;
  request(url: string, options: OutboundRequest): Promise<OutboundResponse>;
  /**
   * The DNS lookup every guarded connection uses: it fails with OutboundAddressRefusedError when a
   * name resolves to a refused address. For any client that opens sockets itself (`lookup` option).
   */
  lookup: LookupFunction;
  /**
   * A streaming `fetch` through the guard: the URL is checked first (OutboundUrlError,
   * OutboundAddressRefusedError), host names are checked by `lookup` on the connection itself, one
   * fresh connection per request, redirects are returned rather than followed, and the request's
   * signal aborts the connection. No timeout of its own: the caller's signal bounds it.
   */
  fetch(input: string | URL | Request, init?: RequestInit): Promise<Response>;
}

export function createOutboundClient(options: { allowCidrs: readonly string[] }): OutboundClient {
  const allowed: BlockList = parseCidrList(options.allowCidrs);

  function refusal(address: string): string | undefined {
    const family = isIP(address);
    if (!family || allowed.check(address, family === 4 ? 'ipv4' : 'ipv6')) return undefined;
    return refusedRange(address);
  }

  function checkUrl(raw: string): URL {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw new OutboundUrlError('must be an absolute URL');
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new OutboundUrlError('must be an http or https URL');
    if (url.username || url.password) throw new OutboundUrlError('must not carry a user name or password');
    // The WHATWG parser already turned 2130706433, 0x7f.1 or 017700000001 into 127.0.0.1.
    const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
    const range = refusal(host);
    if (range) throw new OutboundAddressRefusedError(host, range);
    return url;
  }

  // Used by the socket for every connection it opens; Node skips it for literal IPs (checked above).
  const lookup: LookupFunction = (hostname, lookupOptions, callback) => {
    dns.lookup(hostname, { ...lookupOptions, all: true }, (error, addresses) => {
      if (error) return callback(error, '', 0);
      // One refused address refuses the name: an honest receiver never mixes private and public ones.
      for (const { address } of addresses) {
        const range = refusal(address);
        if (range) return callback(new OutboundAddressRefusedError(address, range), '', 0);
      }
      if (!addresses.length) return callback(new OutboundRequestError(`${hostname} has no address`), '', 0);
      if (lookupOptions.all) return callback(null, addresses);
      return callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  };

  async function request(raw: string, options: OutboundRequest): Promise<OutboundResponse> {
    const url = checkUrl(raw);
    const maxBodyBytes = options.maxBodyBytes ?? 1024;
    const send = url.protocol === 'https:' ? https.request : http.request;
    return new Promise((resolve, reject) => {
      // A fresh connection per request (agent: false): every socket goes through the lookup above.
      const req = send(url, { method: options.method ?? 'GET', headers: options.headers, lookup, agent: false }, (res) => {
        const chunks: Buffer[] = [];
        let kept = 0;
        const finish = () => {
          clearTimeout(timer);
          res.destroy();
          resolve({ status: res.statusCode ?? 0, headers: res.headers, bodySnippet: Buffer.concat(chunks).toString('utf8') });
        };
        // Decompressed bytes are what is kept and counted; the ratio guard bounds the work to get them.
        const body = decode(res, res.headers['content-encoding']);
        body.on('data', (chunk: Buffer) => {
          const room = maxBodyBytes - kept;
          if (room > 0) chunks.push(chunk.subarray(0, room));
          kept += chunk.length;
          if (kept >= maxBodyBytes) finish();
        });
        body.on('end', finish);
        body.on('error', fail);
        if (body !== res) res.on('error', fail);
      });
      const timer = setTimeout(
        () => req.destroy(new OutboundTimeoutError(`No complete answer from ${url.origin} within ${options.timeoutMs} ms`)),
        options.timeoutMs,
      );
      function fail(error: Error) {
        clearTimeout(timer);
        reject(error);
      }
      req.on('error', fail);
      req.end(options.body);
    });
  }

  async function guardedFetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
    const incoming = new Request(input, init);
    const url = checkUrl(incoming.url);
    const signal = incoming.signal;
    signal.throwIfAborted();
    const body = incoming.body ? Buffer.from(await incoming.arrayBuffer()) : undefined;
    const headers: Record<string, string> = Object.fromEntries(incoming.headers);
    if (body) headers['content-length'] = String(body.length);
    const send = url.protocol === 'https:' ? https.request : http.request;
    return new Promise<Response>((resolve, reject) => {
      let response: http.IncomingMessage | undefined;
      const abort = () => {
        const reason = signal.reason instanceof Error ? signal.reason : new DOMException('This operation was aborted', 'AbortError');
        // Before a response this rejects the fetch; after it, the same error ends the body stream.
        req.destroy(reason);
        response?.destroy(reason);
      };
      const req = send(url, { method: incoming.method, headers, lookup, agent: false }, (res) => {
        response = res;
        res.on('close', () => signal.removeEventListener('abort', abort));
        const responseHeaders = new Headers();
        for (let i = 0; i + 1 < res.rawHeaders.length; i += 2) responseHeaders.append(res.rawHeaders[i]!, res.rawHeaders[i + 1]!);
        const status = res.statusCode ?? 0;
        const noBody = incoming.method === 'HEAD' || status === 204 || status === 304;
        try {
          if (noBody) res.resume();
          let stream: ReadableStream<Uint8Array> | null = null;
          if (!noBody) {
            const decoded = decode(res, responseHeaders.get('content-encoding') ?? undefined);
            if (decoded !== res) {
              // The body handed on is the decompressed one.
              responseHeaders.delete('content-encoding');
              responseHeaders.delete('content-length');
            }
            stream = Readable.toWeb(decoded) as NodeReadableStream as ReadableStream<Uint8Array>;
          }
          resolve(new Response(stream, { status, statusText: res.statusMessage ?? '', headers: responseHeaders }));
        } catch (error) {
          res.destroy();
          reject(error as Error);
        }
      });
      signal.addEventListener('abort', abort, { once: true });
      req.on('error', (error) => {
        signal.removeEventListener('abort', abort);
        reject(error);
      });
      req.end(body);
    });
  }

  return { refusal, checkUrl, request, lookup, fetch: guardedFetch };
}

/**
 * Compressed bytes may expand this many times, once past DECOMPRESSED_FREE_BYTES. Text that servers
 * really send (JSON, event streams, HTML) stays far below it; a gzip bomb is about a thousand.
 */
export const MAX_DECOMPRESSION_RATIO = 200;
const DECOMPRESSED_FREE_BYTES = 1024 * 1024;

/**
 * The body as sent, decompressed when the server compressed it anyway (no Accept-Encoding is sent
 * unless a caller's headers ask), ended with a ResponseTooLargeError once the decompressed bytes
 * outgrow the compressed ones by MAX_DECOMPRESSION_RATIO. What the body may hold in all is the
 * reader's to limit (`request`'s maxBodyBytes, lib/response-limits.ts for `fetch`).
 */
function decode(res: http.IncomingMessage, encodingHeader: string | undefined): Readable {
  const encoding = encodingHeader?.trim().toLowerCase();
  const decoder =
    encoding === 'gzip' || encoding === 'x-gzip'
      ? zlib.createGunzip()
      : encoding === 'deflate'
        ? zlib.createInflate()
        : encoding === 'br'
          ? zlib.createBrotliDecompress()
          : undefined;
  if (!decoder) return res;
  let raw = 0;
  let decoded = 0;
  res.on('data', (chunk: Buffer) => (raw += chunk.length));
  const ratioGuard = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      decoded += chunk.length;
      if (decoded > DECOMPRESSED_FREE_BYTES && decoded > raw * MAX_DECOMPRESSION_RATIO) {
        res.destroy();
        done(new ResponseTooLargeError(`expands more than ${MAX_DECOMPRESSION_RATIO} times when decompressed`));
        return;
      }
      done(null, chunk);
    },
  });
  res.on('error', (error) => decoder.destroy(error));
  decoder.on('error', (error) => ratioGuard.destroy(error));
  return res.pipe(decoder).pipe(ratioGuard);
}
