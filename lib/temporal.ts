// Temporal client connections. The API connects lazily, so it starts (and reports 503 from
// /auth/health) while Temporal is still coming up instead of refusing to start.
import { Client, Connection } from '@temporalio/client';
import type { Config } from './config.ts';

export const DEFAULT_TEMPORAL_ADDRESS = '127.0.0.1:7233';

export function temporalAddress(config: Config): string {
  return config.temporalAddress ?? DEFAULT_TEMPORAL_ADDRESS;
}

export function lazyTemporalClient(config: Config): { connection: Connection; client: Client } {
  const connection = Connection.lazy({ address: temporalAddress(config) });
  const client = new Client({ connection, namespace: config.temporalNamespace });
  return { connection, client };
}
