// Encryption of secret values at rest: AES-256-GCM with a fresh 96-bit nonce per value, a key
// derived from the master key for this purpose only, and the owner and name bound in as associated
// data (a ciphertext copied to another user's or key's row does not decrypt).
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { MasterKey } from '../lib/master-key.ts';

export interface Sealed {
  keyId: string;
  nonce: Buffer;
  ciphertext: Buffer;
  authTag: Buffer;
}

const PURPOSE = 'secrets-aes-256-gcm-v1';

export class UnknownMasterKeyError extends Error {
  override name = 'UnknownMasterKeyError';
}

export function seal(masterKey: MasterKey, plaintext: string, context: string): Sealed {
  const nonce = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', masterKey.derive(PURPOSE), nonce);
  cipher.setAAD(Buffer.from(context, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return { keyId: masterKey.id, nonce, ciphertext, authTag: cipher.getAuthTag() };
}

/** `keys` is the current master key followed by previous ones still accepted for reading. */
export function open(keys: readonly MasterKey[], sealed: Sealed, context: string): string {
  const key = keys.find((candidate) => candidate.id === sealed.keyId);
  if (!key) throw new UnknownMasterKeyError(`No master key with id ${sealed.keyId} is configured; was SERVICE_MASTER_KEY changed?`);
  const decipher = createDecipheriv('aes-256-gcm', key.derive(PURPOSE), sealed.nonce);
  decipher.setAAD(Buffer.from(context, 'utf8'));
  decipher.setAuthTag(sealed.authTag);
  return Buffer.concat([decipher.update(sealed.ciphertext), decipher.final()]).toString('utf8');
}
