// The data converters of the service's Temporal clients and workers: the payload converter that keeps
// operators' summaries readable (lib/payload-converter.ts), the failure converter that makes failure
// messages payloads (lib/failure-converter.ts), and the payload codec that encrypts every other
// workflow payload (lib/payload-codec.ts), writing ciphertext unless TEMPORAL_PAYLOAD_ENCRYPTION=off,
// and always reading it.
import type { DataConverter, LoadedDataConverter } from '@temporalio/common';
import { failureConverter } from './failure-converter.ts';
import type { Config } from './config.ts';
import type { MasterKey } from './master-key.ts';
import { encryptionCodec } from './payload-codec.ts';
import { payloadConverter } from './payload-converter.ts';

/** A client's: the converter itself, so nothing is loaded by path in the process. */
export function temporalDataConverter(config: Config, masterKeys: readonly MasterKey[]): LoadedDataConverter {
  return {
    payloadConverter,
    failureConverter,
    payloadCodecs: [encryptionCodec(masterKeys, { encrypt: config.temporalPayloadEncryption })],
  };
}

/**
 * A worker's: Temporal loads the converters by path (`converterPaths()` in workers/workflow-code.ts),
 * in the worker (its activities and their client) and, when the worker bundles its workflows itself,
 * into the bundle (a prebuilt bundle has them built in).
 */
export function temporalWorkerDataConverter(
  config: Config,
  masterKeys: readonly MasterKey[],
  paths: { payloadConverterPath: string; failureConverterPath: string },
): DataConverter {
  return { ...paths, payloadCodecs: temporalDataConverter(config, masterKeys).payloadCodecs };
}
