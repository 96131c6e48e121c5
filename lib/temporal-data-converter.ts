// The data converter of every Temporal client and worker of the service: the payload codec that
// encrypts workflow payloads (lib/payload-codec.ts), writing ciphertext unless
// TEMPORAL_PAYLOAD_ENCRYPTION=off, and always reading it.
import type { DataConverter } from '@temporalio/common';
import type { Config } from './config.ts';
import type { MasterKey } from './master-key.ts';
import { encryptionCodec } from './payload-codec.ts';

export function temporalDataConverter(config: Config, masterKeys: readonly MasterKey[]): DataConverter {
  return { payloadCodecs: [encryptionCodec(masterKeys, { encrypt: config.temporalPayloadEncryption })] };
}
