// What the recording fakes (webhook receiver, Slack, Telegram) share: reading a request's body,
// answering JSON, waiting until enough calls arrived, and closing without waiting for keep-alives.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';

export async function waitForCount<T>(items: readonly T[], count: number, timeoutMs: number, what: string): Promise<T[]> {
  const deadline = Date.now() + timeoutMs;
  while (items.length < count) {
    if (Date.now() > deadline) throw new Error(`${what} got ${items.length}, not ${count}, within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return items.slice(0, count);
}

export async function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

/** The whole body as text, and as JSON when it parses (undefined otherwise). */
export function readJsonRequest(req: IncomingMessage): Promise<{ raw: string; body: Record<string, unknown> | undefined }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('error', reject);
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: Record<string, unknown> | undefined;
      try {
        body = JSON.parse(raw) as Record<string, unknown>;
      } catch {
        body = undefined;
      }
      resolve({ raw, body });
    });
  });
}

export function sendJson(res: ServerResponse, status: number, answer: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
}
