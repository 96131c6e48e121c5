import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectSse, readSse, type SseEvent } from '../helpers/client/sse-parse.ts';

// Each route writes its body in the pieces given, pausing between them so the client reads them as
// separate chunks: the parser must not depend on where the network splits the stream.
const routes: Record<string, (res: ServerResponse) => Promise<void>> = {
  '/mixed': (res) =>
    writeSlowly(res, [
      ': a comment, then a block without data, which is not an event\n',
      'retry: 1000\nid: 0\n\n',
      'id: 1\nevent: greeting\nretry: 2500\ndata: hello\n\n',
      'data: line one\ndata:line two\ndata\n\n',
      'id: 2\r\ndata: crlf\r\n\r\n',
      'data: cr\r\rdata: {"a":1}\n\n',
      'data: unterminated',
    ]),
  '/split': (res) => writeSlowly(res, splitBytes('id: é\r\ndata: 日本\r\n\r\ndata: next\n\n')),
  '/endless': async (res) => {
    res.write('data: first\n\n');
    while (!res.destroyed) {
      res.write(': keep-alive\n\n');
      await sleep(10);
    }
    endlessClosed = true;
  },
  '/quiet': async (res) => {
    res.write('data: only\n\n');
    await new Promise((resolve) => res.on('close', resolve));
  },
};

let endlessClosed = false;
let server: Server;
let baseUrl: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    void (routes[req.url ?? ''] ?? (async () => undefined))(res).then(() => res.end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

async function writeSlowly(res: ServerResponse, pieces: Array<string | Buffer>) {
  for (const piece of pieces) {
    res.write(piece);
    await sleep(2);
  }
}

function splitBytes(text: string): Buffer[] {
  return [...Buffer.from(text)].map((byte) => Buffer.from([byte]));
}

async function all(path: string): Promise<SseEvent[]> {
  const events: SseEvent[] = [];
  for await (const event of readSse(await fetch(baseUrl + path))) events.push(event);
  return events;
}

describe('readSse', () => {
  it('parses comments, fields, multi-line data and every line ending', async () => {
    expect(await all('/mixed')).toEqual([
      { id: '1', event: 'greeting', retry: 2500, data: 'hello' },
      { data: 'line one\nline two\n' },
      { id: '2', data: 'crlf' },
      { data: 'cr' },
      { data: '{"a":1}' },
    ]);
  });

  it('does not depend on chunk boundaries, even inside a character or a CRLF', async () => {
    expect(await all('/split')).toEqual([{ id: 'é', data: '日本' }, { data: 'next' }]);
  });

  it('closes the connection when the reader stops early', async () => {
    endlessClosed = false;
    for await (const event of readSse(await fetch(`${baseUrl}/endless`))) {
      expect(event.data).toBe('first');
      break;
    }
    await expect.poll(() => endlessClosed).toBe(true);
  });
});

describe('collectSse', () => {
  it('stops at the first event that matches, and includes it', async () => {
    const events = await collectSse(await fetch(`${baseUrl}/mixed`), (event) => event.data.startsWith('line'));
    expect(events.map((event) => event.data)).toEqual(['hello', 'line one\nline two\n']);
  });

  it('reads to the end without a condition', async () => {
    expect(await collectSse(await fetch(`${baseUrl}/split`))).toHaveLength(2);
  });

  it('fails when the stream ends first or nothing matches in time', async () => {
    await expect(collectSse(await fetch(`${baseUrl}/split`), (event) => event.data === 'never')).rejects.toThrow(/ended before/);
    await expect(collectSse(await fetch(`${baseUrl}/quiet`), () => false, { timeoutMs: 100 })).rejects.toThrow(/timed out.*only/);
  });
});
