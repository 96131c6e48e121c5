// The master keys a process holds while a key is rotated: SERVICE_MASTER_KEY first (it seals and
// signs everything new), then SERVICE_MASTER_KEY_PREVIOUS in the order given (they only open and
// verify what they made before). A key listed twice is held once; a short previous key stops the
// process, naming the variable and never the value.
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../lib/config.ts';
import { loadMasterKeys, parseMasterKey } from '../../lib/master-key.ts';

const CURRENT = 'current-master-key-0123456789abcdefghijklmnop';
const OLDER = 'older-master-key-0123456789abcdefghijklmnopqr';
const OLDEST = 'oldest-master-key-0123456789abcdefghijklmnopq';
const idOf = (value: string) => parseMasterKey(value).id;

function keysFor(previous: string | undefined) {
  const env = { NODE_ENV: 'test', LOG_LEVEL: 'silent', SERVICE_MASTER_KEY: CURRENT };
  return loadMasterKeys(loadConfig(previous === undefined ? env : { ...env, SERVICE_MASTER_KEY_PREVIOUS: previous }));
}

describe('loadMasterKeys', () => {
  it('gives the current key alone when no previous key is set', () => {
    expect(keysFor(undefined).map((key) => key.id)).toEqual([idOf(CURRENT)]);
    expect(keysFor('').map((key) => key.id)).toEqual([idOf(CURRENT)]);
  });

  it('gives the current key first, then the previous ones in the order listed', () => {
    expect(keysFor(`${OLDER},${OLDEST}`).map((key) => key.id)).toEqual([idOf(CURRENT), idOf(OLDER), idOf(OLDEST)]);
    expect(keysFor(` ${OLDEST} , ${OLDER} `).map((key) => key.id)).toEqual([idOf(CURRENT), idOf(OLDEST), idOf(OLDER)]);
  });

  it('holds a key listed twice once, at its first place, the current key first even when listed as previous', () => {
    expect(keysFor(`${OLDER},${CURRENT},${OLDER},${OLDEST},${OLDEST}`).map((key) => key.id)).toEqual([
      idOf(CURRENT),
      idOf(OLDER),
      idOf(OLDEST),
    ]);
  });

  it('derives distinct keys from each, so what a previous key sealed needs that key', () => {
    const [current, older] = keysFor(OLDER);
    expect(current!.id).not.toBe(older!.id);
    expect(current!.derive('secrets').equals(older!.derive('secrets'))).toBe(false);
    expect(older!.derive('secrets').equals(parseMasterKey(OLDER).derive('secrets'))).toBe(true);
  });

  it('refuses a previous key shorter than 32 characters, naming SERVICE_MASTER_KEY_PREVIOUS and its place, not its value', () => {
    const short = 'too-short-previous-key';
    let refused: unknown;
    try {
      keysFor(`${OLDER},${short}`);
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(ConfigError);
    expect((refused as Error).message).toBe('SERVICE_MASTER_KEY_PREVIOUS: key 2 must be at least 32 characters');
    expect((refused as Error).message).not.toContain(short);
  });
});
