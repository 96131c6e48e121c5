// The baseline of bench/concurrent-streams.bench.ts, run as a child process of its own: an
// in-memory relay, what a server that keeps streams in memory (as the LangGraph peer does) costs.
// POST /stream/<id> answers 202 at once, then asks the fake model (argv[2], a Chat Completions base
// URL) for a streamed reply and writes each content delta, the moment it is parsed, as an SSE event
// to the readers of <id> (GET /stream/<id>/events). Nothing is stored: no database, no workflow, no
// batching. The events have the service's shape (`message.part.delta`, then `turn.completed`), so
// the benchmark reads both servers with the same reader.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

const fakeBaseUrl = process.argv[2];
if (!fakeBaseUrl) throw new Error('usage: concurrent-streams-relay.ts <fake model base URL>');

/** Open SSE answers per stream id. */
const readers = new Map<string, Set<http.ServerResponse>>();
const sequences = new Map<string, number>();
// One socket per concurrent upstream stream, kept for the next round.
const upstream = new http.Agent({ keepAlive: true });

function broadcast(id: string, event: Record<string, unknown>): void {
  const seq = (sequences.get(id) ?? 0) + 1;
  sequences.set(id, seq);
  const frame = `id: ${seq}\ndata: ${JSON.stringify({ seq, sessionId: id, ...event })}\n\n`;
  for (const reader of readers.get(id) ?? []) reader.write(frame);
}

function subscribe(id: string, res: http.ServerResponse): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  res.flushHeaders();
  let set = readers.get(id);
  if (!set) readers.set(id, (set = new Set()));
  set.add(res);
  res.on('close', () => {
    set.delete(res);
    if (set.size === 0) readers.delete(id);
  });
}

/** Streams one reply from the fake and relays its content deltas; ends with turn.completed (or turn.failed). */
function relay(id: string, text: string): void {
  const turnId = `${id}-turn`;
  const body = JSON.stringify({ model: 'fake-model', stream: true, messages: [{ role: 'user', content: text }] });
  const fail = (error: Error) => broadcast(id, { type: 'turn.failed', turnId, error: error.message });
  const request = http.request(
    `${fakeBaseUrl}/chat/completions`,
    {
      method: 'POST',
      agent: upstream,
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), authorization: 'Bearer bench-key' },
    },
    (response) => {
      if (response.statusCode !== 200) {
        response.resume();
        fail(new Error(`the model answered ${response.statusCode}`));
        return;
      }
      response.setEncoding('utf8');
      let buffer = '';
      response.on('data', (chunk: string) => {
        buffer += chunk;
        for (let end = buffer.indexOf('\n\n'); end !== -1; end = buffer.indexOf('\n\n')) {
          const frame = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const data = frame.split('\n').find((line) => line.startsWith('data: '));
          if (!data || data === 'data: [DONE]') continue;
          const parsed = JSON.parse(data.slice('data: '.length)) as { choices?: Array<{ delta?: { content?: string } }> };
          const delta = parsed.choices?.[0]?.delta?.content;
          if (delta) broadcast(id, { type: 'message.part.delta', messageId: turnId, delta });
        }
      });
      response.on('end', () => broadcast(id, { type: 'turn.completed', turnId, usage: {}, costUsd: null }));
      response.on('error', fail);
    },
  );
  request.on('error', fail);
  request.end(body);
}

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

const server = http.createServer((req, res) => {
  const match = /^\/stream\/([\w-]+)(\/events)?(?:\?.*)?$/.exec(req.url ?? '');
  if (match && match[2] && req.method === 'GET') return subscribe(match[1]!, res);
  if (match && !match[2] && req.method === 'POST') {
    const id = match[1]!;
    readBody(req).then(
      (text) => {
        const { text: message } = JSON.parse(text) as { text: string };
        res.writeHead(202, { 'content-type': 'application/json' }).end(JSON.stringify({ messageId: `${id}-turn` }));
        relay(id, message);
      },
      () => res.writeHead(400).end(),
    );
    return;
  }
  res.writeHead(404).end();
});

server.listen(0, '127.0.0.1', () => {
  process.send?.({ type: 'ready', url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
});
// The benchmark stops this process with SIGTERM; a benchmark that dies closes the IPC channel.
process.on('SIGTERM', () => process.exit(0));
process.on('disconnect', () => process.exit(0));
