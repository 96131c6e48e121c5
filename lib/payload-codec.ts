// Workflow payloads encrypted at rest in Temporal: every payload a client or worker sends (workflow and
// activity inputs and results, signals, updates, queries, memos) becomes AES-256-GCM
// ciphertext under a key derived from the master key for this purpose only, named by the master
// key's id so a rotated key still reads what it wrote. Readers of the Temporal cluster or its database
// see ciphertext; search attributes (ids only) are never encoded and stay searchable, and the
// summaries and details written readable on purpose (lib/workflow-safe/readable-metadata.ts) pass as they are.
//
// A payload without the encrypted encoding passes through: histories written before encryption was
// turned on (or while it was off) still replay and read.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { Payload, PayloadCodec } from '@temporalio/common';
import proto from '@temporalio/proto';
import type { MasterKey } from './master-key.ts';
import { isReadablePayload } from './workflow-safe/readable-metadata.ts';

// The package is CommonJS: its namespace comes through the default export under Node's ESM loader.
const ProtoPayload = proto.temporal.api.common.v1.Payload;

export const ENCRYPTED_ENCODING = 'binary/encrypted';
const KEY_ID = 'encryption-key-id';
const PURPOSE = 'temporal-payloads-aes-256-gcm-v1';
/** Bound into every ciphertext: a payload encrypted for another use of the same key does not decrypt here. */
const ASSOCIATED_DATA = Buffer.from('agent-service temporal payload v1');
const NONCE_BYTES = 12;
const TAG_BYTES = 16;

/**
 * `undefined` (the `binary/null` encoding and no data; `null` is JSON) has nothing to hide, and is much
 * of what passes: every heartbeat of a streaming model step, twice a second, and every activity that
 * returns nothing. It stays as it is rather than cost an encryption each time.
 */
function isNullPayload(payload: Payload): boolean {
  return read(payload.metadata?.encoding) === 'binary/null' && !payload.data?.length && Object.keys(payload.metadata ?? {}).length === 1;
}

export class PayloadKeyMissingError extends Error {
  override name = 'PayloadKeyMissingError';
}

const text = (value: string) => new TextEncoder().encode(value);
const read = (value: Uint8Array | null | undefined) => (value ? new TextDecoder().decode(value) : undefined);

/**
 * `keys`: the current master key first, then previous ones still accepted for reading. `encrypt`
 * false writes plaintext (the codec's cost can be measured beside it) but still reads ciphertext.
 */
export function encryptionCodec(keys: readonly MasterKey[], options: { encrypt: boolean } = { encrypt: true }): PayloadCodec {
  if (keys.length === 0) throw new Error('the payload codec needs a master key');
  const derived = new Map(keys.map((key) => [key.id, key.derive(PURPOSE)]));
  const current = keys[0]!;
  const currentKey = derived.get(current.id)!;

  function encrypt(payload: Payload): Payload {
    const nonce = randomBytes(NONCE_BYTES);
    const cipher = createCipheriv('aes-256-gcm', currentKey, nonce);
    cipher.setAAD(ASSOCIATED_DATA);
    const plaintext = ProtoPayload.encode(payload).finish();
    const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
    return {
      metadata: { encoding: text(ENCRYPTED_ENCODING), [KEY_ID]: text(current.id) },
      data: Buffer.concat([nonce, ciphertext, cipher.getAuthTag()]),
    };
  }

  function decrypt(payload: Payload): Payload {
    const keyId = read(payload.metadata?.[KEY_ID]) ?? '';
    const key = derived.get(keyId);
    if (!key) {
      throw new PayloadKeyMissingError(
        `A workflow payload is encrypted under master key ${keyId || '(none named)'}, which this process does not hold: ` +
          'set it as SERVICE_MASTER_KEY or in SERVICE_MASTER_KEY_PREVIOUS',
      );
    }
    const data = Buffer.from(payload.data ?? new Uint8Array());
    const decipher = createDecipheriv('aes-256-gcm', key, data.subarray(0, NONCE_BYTES));
    decipher.setAAD(ASSOCIATED_DATA);
    decipher.setAuthTag(data.subarray(data.length - TAG_BYTES));
    const plaintext = Buffer.concat([decipher.update(data.subarray(NONCE_BYTES, data.length - TAG_BYTES)), decipher.final()]);
    return ProtoPayload.decode(plaintext);
  }

  return {
    async encode(payloads) {
      return options.encrypt
        ? payloads.map((payload) => (isReadablePayload(payload) || isNullPayload(payload) ? payload : encrypt(payload)))
        : payloads;
    },
    async decode(payloads) {
      return payloads.map((payload) => (read(payload.metadata?.encoding) === ENCRYPTED_ENCODING ? decrypt(payload) : payload));
    },
  };
}
