// The master key protects secrets at rest and signs approval links. In production it must come from
// SERVICE_MASTER_KEY; elsewhere it is generated once and kept under DATA_DIR so that a restart (or a
// second process started by the launcher) reads the same key.
import { hkdfSync, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Config } from './config.ts';
import { ConfigError } from './config.ts';

export interface MasterKey {
  /** Short, non-secret fingerprint stored beside encrypted values so the key can be rotated. */
  id: string;
  /** A 32-byte key for one purpose, derived with HKDF so no two uses share key material. */
  derive(purpose: string): Buffer;
}

function fromMaterial(material: Buffer): MasterKey {
  const id = Buffer.from(hkdfSync('sha256', material, Buffer.alloc(0), 'key-id', 6)).toString('hex');
  return {
    id,
    derive: (purpose) => Buffer.from(hkdfSync('sha256', material, Buffer.alloc(0), purpose, 32)),
  };
}

export function parseMasterKey(value: string): MasterKey {
  if (value.length < 32) throw new ConfigError('SERVICE_MASTER_KEY must be at least 32 characters');
  return fromMaterial(Buffer.from(value, 'utf8'));
}

export function loadMasterKey(config: Config): MasterKey {
  if (config.serviceMasterKey) return parseMasterKey(config.serviceMasterKey);
  const file = path.join(config.dataDir, 'master.key');
  fs.mkdirSync(config.dataDir, { recursive: true });
  try {
    // 'wx' fails if the file exists, so two processes starting together agree on one key.
    fs.writeFileSync(file, randomBytes(32).toString('base64url'), { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  return parseMasterKey(fs.readFileSync(file, 'utf8').trim());
}

/**
 * The current master key, then the previous ones (SERVICE_MASTER_KEY_PREVIOUS) still accepted for
 * reading what they sealed or signed: secrets, webhook secrets, approval links, workflow payloads.
 */
export function loadMasterKeys(config: Config): MasterKey[] {
  const current = loadMasterKey(config);
  const previous = config.previousMasterKeys.map((value, index) => {
    try {
      return parseMasterKey(value);
    } catch {
      throw new ConfigError(`SERVICE_MASTER_KEY_PREVIOUS: key ${index + 1} must be at least 32 characters`);
    }
  });
  // A key listed twice (or the current one listed as previous) is kept once, at its first place.
  return [current, ...previous].filter((key, index, all) => all.findIndex((other) => other.id === key.id) === index);
}
