// Closing the API's Temporal connection while a call is between retries. The SDK retries a call that
// failed with UNAVAILABLE on a timer Connection.close() does not clear; a retry firing after the close
// throws from that timer and takes the process down. lazyTemporalClient's close waits it out.
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, expect, test } from 'vitest';
import { loadConfig } from '../../lib/config.ts';
import { lazyTemporalClient } from '../../lib/temporal.ts';

const uncaught: Error[] = [];
const collect = (error: Error) => uncaught.push(error);

afterEach(() => {
  process.off('uncaughtException', collect);
});

/** A port nothing listens on: every call there fails UNAVAILABLE and is retried. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

test('a close while a call waits for its retry leaves no retry to fire on the closed channel', async () => {
  process.on('uncaughtException', collect);
  const temporal = lazyTemporalClient(loadConfig({ TEMPORAL_ADDRESS: `127.0.0.1:${await closedPort()}` }));
  const call = temporal.connection.workflowService.getSystemInfo({}).then(
    () => 'answered',
    (error: Error) => error.message,
  );
  // The first attempt fails at once (connection refused) and its retry is scheduled about 170 ms out.
  await new Promise((resolve) => setTimeout(resolve, 60));
  await temporal.close();
  // Every retry the call could have scheduled would have fired by now.
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  expect(uncaught.map((error) => error.message)).toEqual([]);
  expect(await call).toMatch(/UNAVAILABLE/);
});
