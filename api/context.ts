// What the API adds to every request, and the dependencies every route receives.
import type { Client, Connection } from '@temporalio/client';
import type { Db } from '../store/db.ts';
import type { Logger } from '../lib/logger.ts';
import type { Config } from '../lib/config.ts';
import type { MasterKey } from '../lib/master-key.ts';
import type { Principal } from '../store/api-keys.ts';
import type { EventHub } from './streaming/event-hub.ts';
import type { Storage } from '../lib/storage.ts';
import type { HandOffs } from './hand-offs.ts';

export interface ApiDeps {
  config: Config;
  db: Db;
  logger: Logger;
  /** The current master key: everything sealed, signed or shown now uses it. */
  masterKey: MasterKey;
  /** The current master key, then the previous ones still accepted when reading and verifying. */
  masterKeys: readonly MasterKey[];
  temporal: { connection: Connection; client: Client };
  /** This process's LISTEN connection, shared by every event stream it serves. */
  events: EventHub;
  /** Signals handing workflows what PostgreSQL holds (a send's wake-up, an approval's answer), sent after the answer. */
  handOffs: HandOffs;
  /** Where uploads are kept; by default the local disk under DATA_DIR/media. */
  storage?: Storage;
}

declare module 'express-serve-static-core' {
  interface Request {
    traceId: string;
    log: Logger;
    principal?: Principal;
  }
}
