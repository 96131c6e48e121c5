// A load balancer in front of the API keeps its connections idle for up to a minute (AWS's ALB, nginx):
// the API must keep them longer, or the balancer reuses one the API is closing and its client gets a
// 502. The API announces how long it keeps them, for clients that read it, and holds to it.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect } from 'vitest';
import { apiTest } from '../helpers/harness/fixtures.ts';

const test = apiTest();

/** Node's own keep-alive: a connection idle this long was closed before the API set its own. */
const NODE_DEFAULT_KEEP_ALIVE_MS = 5_000;

interface Answer {
  status: number;
  keepAlive: string | undefined;
  /** The client's port: the same port is the same connection. */
  localPort: number;
  reusedSocket: boolean;
}

function get(agent: http.Agent, url: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = http.get(url, { agent }, (response) => {
      response.resume();
      response.on('end', () =>
        resolve({
          status: response.statusCode ?? 0,
          keepAlive: response.headers['keep-alive'] as string | undefined,
          localPort: (request.socket?.address() as AddressInfo).port,
          reusedSocket: request.reusedSocket,
        }),
      );
    });
    request.on('error', reject);
  });
}

describe('idle client connections', () => {
  test('are kept 65 s by default, announced in Keep-Alive, and reused after longer than Node’s 5 s', async ({ api }) => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const first = await get(agent, `${api.url}/auth/health/live`);
      expect(first.status).toBe(200);
      expect(first.keepAlive).toBe('timeout=65');
      await new Promise((resolve) => setTimeout(resolve, NODE_DEFAULT_KEEP_ALIVE_MS + 1_000));
      const second = await get(agent, `${api.url}/auth/health/live`);
      expect(second.status).toBe(200);
      expect(second.reusedSocket).toBe(true);
      expect(second.localPort).toBe(first.localPort);
    } finally {
      agent.destroy();
    }
  });
});
