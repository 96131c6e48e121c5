// Answers are counted as they are read: the whole body, its longest line (across chunks, CR or LF),
// a 2xx body apart from an error body, and (through the outbound client) compressed bytes against
// what they expand to. Past a limit the body ends with a ResponseTooLargeError that says why.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import zlib from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { BodyMeter, limitBody, limitedFetch, responseTooLarge, ResponseTooLargeError } from '../../lib/response-limits.ts';
import { createOutboundClient, MAX_DECOMPRESSION_RATIO } from '../../lib/outbound.ts';

const bytes = (text: string) => new TextEncoder().encode(text);

function streamOf(chunks: string[]): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(bytes(chunk));
      controller.close();
    },
  });
}

async function readAll(body: ReadableStream<Uint8Array>): Promise<string> {
  return new Response(body).text();
}

describe('BodyMeter', () => {
  it('counts a line across chunks and resets it at LF or CR', () => {
    const meter = new BodyMeter({ maxBytes: 1000, maxLineBytes: 5, what: 'It' });
    expect(meter.count(bytes('abc'))).toBeUndefined();
    expect(meter.count(bytes('de\nabcde\rab'))).toBeUndefined();
    expect(meter.count(bytes('c'))).toBeUndefined();
    expect(meter.count(bytes('de\r\n12345'))).toBeUndefined();
    expect(meter.count(bytes('6'))?.message).toBe('It sent a line longer than 5 bytes; it was cut off there');
  });

  it('finds a long line between two line ends inside one chunk', () => {
    const meter = new BodyMeter({ maxBytes: 1000, maxLineBytes: 5, what: 'It' });
    expect(meter.count(bytes('a\n123456\nb'))).toBeInstanceOf(ResponseTooLargeError);
  });

  it('counts the whole body, and names the setting the limit follows', () => {
    const meter = new BodyMeter({ maxBytes: 10, what: 'The stream', setting: 'SOME_SETTING' });
    expect(meter.count(bytes('\n'.repeat(10)))).toBeUndefined();
    expect(meter.count(bytes('\n'))?.message).toBe('The stream went past 10 bytes (the limit follows SOME_SETTING); it was cut off there');
  });
});

describe('limitBody and limitedFetch', () => {
  it('passes a body within its limits unchanged', async () => {
    expect(await readAll(limitBody(streamOf(['data: 1\n\n', 'data: 2\n\n']), { maxBytes: 100, maxLineBytes: 10, what: 'It' }))).toBe(
      'data: 1\n\ndata: 2\n\n',
    );
  });

  it('ends a body past its limit with the error, and cancels the source', async () => {
    let cancelled: unknown;
    const source = new ReadableStream<Uint8Array>({
      pull: (controller) => controller.enqueue(bytes('x'.repeat(100))),
      cancel: (reason) => {
        cancelled = reason;
      },
    });
    await expect(readAll(limitBody(source, { maxBytes: 1000, what: 'It' }))).rejects.toThrow('It went past 1000 bytes');
    expect(cancelled).toBeInstanceOf(ResponseTooLargeError);
  });

  it('limits a 2xx body and an error body apart', async () => {
    const answers = [new Response('x'.repeat(50), { status: 200 }), new Response('x'.repeat(50), { status: 500 })];
    const fetch = limitedFetch(() => Promise.resolve(answers.shift()!), {
      body: { maxBytes: 100, what: 'The stream' },
      errorBody: { maxBytes: 10, what: 'The error answer' },
    });
    expect(await (await fetch('http://x')).text()).toHaveLength(50);
    const failed = await fetch('http://x');
    expect(failed.status).toBe(500);
    await expect(failed.text()).rejects.toThrow('The error answer went past 10 bytes');
  });

  it('finds the error through the causes SDKs wrap it in', () => {
    const error = new ResponseTooLargeError('went past 1 bytes');
    expect(responseTooLarge(new Error('outer', { cause: new Error('middle', { cause: error }) }))).toBe(error);
    expect(responseTooLarge({ lastError: error })).toBe(error);
    expect(responseTooLarge(new Error('plain'))).toBeUndefined();
  });
});

describe('the outbound client decompresses within a ratio', () => {
  let server: Server | undefined;
  afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

  async function serve(body: Buffer, encoding: string): Promise<string> {
    server = createServer((_req, res) => {
      res.writeHead(200, { 'content-encoding': encoding, 'content-type': 'text/plain' });
      res.end(body);
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  }
  const client = createOutboundClient({ allowCidrs: ['127.0.0.1/32'] });

  it('reads a gzipped answer as text, through fetch and request', async () => {
    const url = await serve(zlib.gzipSync('hello, compressed'), 'gzip');
    const response = await client.fetch(url);
    expect(response.headers.get('content-encoding')).toBeNull();
    expect(await response.text()).toBe('hello, compressed');
    expect((await client.request(url, { timeoutMs: 5000 })).bodySnippet).toBe('hello, compressed');
  });

  it(`ends an answer that expands more than ${MAX_DECOMPRESSION_RATIO} times`, async () => {
    const url = await serve(zlib.gzipSync(Buffer.alloc(64 * 1024 * 1024)), 'gzip');
    await expect((await client.fetch(url)).arrayBuffer()).rejects.toThrow(/expands more than \d+ times when decompressed/);
    await expect(client.request(url, { timeoutMs: 5000, maxBodyBytes: 32 * 1024 * 1024 })).rejects.toBeInstanceOf(ResponseTooLargeError);
  });
});
