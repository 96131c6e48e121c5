// Temporal client connections. The API connects lazily, so it starts (and reports 503 from
// /auth/health) while Temporal is still coming up instead of refusing to start.
import { Client, Connection, type TLSConfig } from '@temporalio/client';
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

export function lazyTemporalClient(config: Config): { connection: Connection; client: Client } {
  const connection = Connection.lazy(temporalConnectionOptions(config));
  const client = new Client({
    connection,
    namespace: config.temporalNamespace,
    ...temporalClientTracing(config),
    dataConverter: temporalDataConverter(config, loadMasterKeys(config)),
  });
  return { connection, client };
}
