// A workflow history with its payloads decrypted by the service's codec, as an operator with the
// codec endpoint reads it: tests that look for what a history must never hold (tokens, keys) look in
// the plaintext, not in the ciphertext that hides everything anyway. The result is the history's
// protobuf JSON (bytes in base64), every encrypted payload replaced by the payload it holds.
import type { History } from '@temporalio/common/lib/proto-utils.js';
import { loadMasterKeys } from '../../../lib/master-key.ts';
import { ENCRYPTED_ENCODING, encryptionCodec } from '../../../lib/payload-codec.ts';
import { testConfig } from './env.ts';

const codec = encryptionCodec(loadMasterKeys(testConfig()));

interface JsonPayload {
  metadata: Record<string, string>;
  data?: string;
}

function isEncrypted(value: unknown): value is JsonPayload {
  const metadata = (value as JsonPayload | null)?.metadata;
  return (
    !!metadata && typeof metadata.encoding === 'string' && Buffer.from(metadata.encoding, 'base64').toString('utf8') === ENCRYPTED_ENCODING
  );
}

async function decrypt(payload: JsonPayload): Promise<JsonPayload> {
  const [plain] = await codec.decode([
    {
      metadata: Object.fromEntries(Object.entries(payload.metadata).map(([key, value]) => [key, Buffer.from(value, 'base64')])),
      data: Buffer.from(payload.data ?? '', 'base64'),
    },
  ]);
  return {
    metadata: Object.fromEntries(
      Object.entries(plain!.metadata ?? {}).map(([key, value]) => [key, Buffer.from(value ?? []).toString('base64')]),
    ),
    ...(plain!.data?.length ? { data: Buffer.from(plain!.data).toString('base64') } : {}),
  };
}

export async function decodedHistory(history: History): Promise<unknown> {
  const decode = async (value: unknown): Promise<unknown> => {
    if (isEncrypted(value)) return decrypt(value);
    if (Array.isArray(value)) return Promise.all(value.map(decode));
    if (!value || typeof value !== 'object') return value;
    const entries = await Promise.all(Object.entries(value).map(async ([key, inner]) => [key, await decode(inner)] as const));
    return Object.fromEntries(entries);
  };
  return decode(JSON.parse(JSON.stringify(history)));
}
