// The baseline server of bench/concurrent-streams.bench.ts as a StreamTarget: the in-memory relay
// (bench/concurrent-streams-relay.ts) started as a child process of its own, as the API is, and
// reached by the same readers and the same sends.
import { randomBytes } from 'node:crypto';
import { forkBenchChild } from './concurrent-streams-children.ts';
import type { StreamTarget } from './concurrent-streams-round.ts';
import { expectStatus, jsonHeaders, timedRequest } from './http-json.ts';

export interface BaselineTarget extends StreamTarget {
  close(): Promise<void>;
}

export async function startBaseline(fakeBaseUrl: string, logDir: string): Promise<BaselineTarget> {
  const child = forkBenchChild({
    name: 'relay',
    file: 'bench/concurrent-streams-relay.ts',
    args: [fakeBaseUrl],
    env: process.env,
    logDir,
    readyTimeoutMs: 60_000,
  });
  try {
    const url = String((await child.ready).url);
    const headers = jsonHeaders({});
    let next = 0;
    const run = randomBytes(4).toString('hex');
    return {
      headers,
      pids: { relay: child.pid },
      async open(count) {
        return Array.from({ length: count }, () => `${run}-${next++}`);
      },
      async eventsUrl(id) {
        return `${url}/stream/${id}/events`;
      },
      async send(agent, id, text) {
        const response = await timedRequest<{ messageId: string }>(agent, `${url}/stream/${id}`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ text }),
          timeoutMs: 60_000,
        });
        return expectStatus(response, 202, 'POST /stream/<id>').messageId;
      },
      close: () => child.stop(),
    };
  } catch (error) {
    await child.stop();
    throw error;
  }
}
