// Temporal client connections. The API connects lazily, so it starts (and reports 503 from
// /auth/health) while Temporal is still coming up instead of refusing to start.
import { Client, Connection, defaultGrpcRetryOptions, makeGrpcRetryInterceptor, type TLSConfig } from '@temporalio/client';
import type { Config } from './config.ts';
import { temporalClientTracing } from './tracing.ts';
import { loadMasterKeys } from './master-key.ts';
import { temporalDataConverter } from './temporal-data-converter.ts';

export const DEFAULT_TEMPORAL_ADDRESS = '127.0.0.1:7233';

export function temporalAddress(config: Config): string {
  return config.temporalAddress ?? DEFAULT_TEMPORAL_ADDRESS;
}

/**
 * Address, TLS and API key of the Temporal frontend, as both the client's Connection and the
 * worker's NativeConnection take them: every process reaches Temporal the same way.
 */
export function temporalConnectionOptions(config: Config): { address: string; tls?: TLSConfig; apiKey?: string } {
  const { tls, apiKey } = config.temporal;
  return {
    address: temporalAddress(config),
    ...(tls
      ? {
          tls: {
            ...(tls.serverName ? { serverNameOverride: tls.serverName } : {}),
            ...(tls.ca ? { serverRootCACertificate: tls.ca } : {}),
            ...(tls.clientCert ? { clientCertPair: { crt: tls.clientCert.cert, key: tls.clientCert.key } } : {}),
          },
        }
      : {}),
    ...(apiKey ? { apiKey } : {}),
  };
}

export interface LazyTemporalClient {
  connection: Connection;
  client: Client;
  /** Closes the connection once the retries it already scheduled have run (see closeAfterRetries). */
  close(): Promise<void>;
}

export function lazyTemporalClient(config: Config): LazyTemporalClient {
  const retries = closeAfterRetries();
  const connection = Connection.lazy({ ...temporalConnectionOptions(config), interceptors: [retries.interceptor] });
  const client = new Client({
    connection,
    namespace: config.temporalNamespace,
    ...temporalClientTracing(config),
    dataConverter: temporalDataConverter(config, loadMasterKeys(config)),
  });
  return { connection, client, close: () => retries.close(connection) };
}

/**
 * The client's own retry of a failed call (UNAVAILABLE and the like), with a close that waits for it.
 * The SDK schedules each retry on a timer that Connection.close() does not clear: one firing after the
 * close throws "Channel has been shut down" from the timer, an uncaught exception that ends the process.
 * So a close first stops new retries from being scheduled, then waits until the last one scheduled
 * has started (at most the backoff's 5 s cap, and only when a retry is pending), and only then closes.
 */
function closeAfterRetries() {
  const defaults = defaultGrpcRetryOptions();
  let closing = false;
  /** When the latest retry scheduled starts. */
  let lastRetryAt = 0;
  const interceptor = makeGrpcRetryInterceptor({
    retryableDecider: (attempt, status) => !closing && defaults.retryableDecider(attempt, status),
    delayFunction: (attempt, status) => {
      const delayMs = defaults.delayFunction(attempt, status);
      lastRetryAt = Math.max(lastRetryAt, Date.now() + delayMs);
      return delayMs;
    },
  });
  return {
    interceptor,
    async close(connection: Connection): Promise<void> {
      closing = true;
      const waitMs = lastRetryAt - Date.now();
      // A little past the timer, so the retry's call has been made on the open channel.
      if (waitMs > -50) await new Promise((resolve) => setTimeout(resolve, Math.max(0, waitMs) + 50));
      await connection.close();
    },
  };
}
