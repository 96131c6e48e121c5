// What the recording fakes (webhook receiver, Slack, Telegram) share: waiting until enough calls
// arrived, and closing the server without waiting for keep-alive connections.
import type { Server } from 'node:http';

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
