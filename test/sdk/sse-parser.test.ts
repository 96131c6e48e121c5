// The SDK's own SSE parser: fields, comments, multi-line data, and every line ending, however the
// bytes are split into chunks (a CRLF or a multi-byte character cut in two).
import { describe, expect, test } from 'vitest';
import { parseServerSentEvents, type ServerSentEvent } from '../../sdk/src/sse.ts';

function streamOf(chunks: Array<string | Uint8Array>): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(typeof chunk === 'string' ? encoder.encode(chunk) : chunk);
      controller.close();
    },
  });
}

async function parse(chunks: Array<string | Uint8Array>): Promise<ServerSentEvent[]> {
  const events: ServerSentEvent[] = [];
  for await (const event of parseServerSentEvents(streamOf(chunks))) events.push(event);
  return events;
}

describe('parseServerSentEvents', () => {
  test('reads id, event and data, and skips comments', async () => {
    expect(await parse([': keep-alive\n\nid: 7\nevent: turn.started\ndata: {"seq":7}\n\n'])).toEqual([
      { id: '7', event: 'turn.started', data: '{"seq":7}' },
    ]);
  });

  test('joins data lines with a newline; an event without event: is a message', async () => {
    expect(await parse(['data: one\ndata: two\ndata\n\n'])).toEqual([{ id: undefined, event: 'message', data: 'one\ntwo\n' }]);
  });

  test('takes LF, CR and CRLF line endings alike', async () => {
    const expected = [
      { id: '1', event: 'a', data: 'x' },
      { id: '2', event: 'b', data: 'y' },
      { id: '3', event: 'c', data: 'z' },
    ];
    expect(await parse(['id: 1\nevent: a\ndata: x\n\nid: 2\revent: b\rdata: y\r\rid: 3\r\nevent: c\r\ndata: z\r\n\r\n'])).toEqual(expected);
  });

  test('the same events whatever the chunking, CRLF and UTF-8 characters cut in two included', async () => {
    const text = 'id: 1\r\nevent: message.part.delta\r\ndata: {"delta":"héllo ✓"}\r\n\r\n: ping\r\n\r\nid: 2\r\ndata: end\r\n\r\n';
    const bytes = new TextEncoder().encode(text);
    const whole = await parse([bytes]);
    expect(whole).toHaveLength(2);
    expect(whole[0]!.data).toBe('{"delta":"héllo ✓"}');
    for (let cut = 1; cut < bytes.length; cut++) {
      expect(await parse([bytes.slice(0, cut), bytes.slice(cut)])).toEqual(whole);
    }
    expect(await parse([...bytes].map((byte) => new Uint8Array([byte])))).toEqual(whole);
  });

  test('drops an event the stream ended in the middle of, and a data-less block', async () => {
    expect(await parse(['event: lonely\n\nid: 1\ndata: kept\n\nid: 2\ndata: cut off'])).toEqual([
      { id: '1', event: 'message', data: 'kept' },
    ]);
  });

  test('a value keeps everything after the first colon and one leading space', async () => {
    expect(await parse(['data:  two spaces: and colons\n\n'])).toEqual([
      { id: undefined, event: 'message', data: ' two spaces: and colons' },
    ]);
  });
});
