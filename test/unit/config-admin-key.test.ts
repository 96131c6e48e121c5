// ADMIN_API_KEY is a key an operator chose: loadConfig refuses one shorter than 32 characters (or one
// that could never be sent as a bearer token), so no process starts with a guessable admin key.
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../lib/config.ts';
import { generateKey } from '../../store/api-keys.ts';

const base = { NODE_ENV: 'test', LOG_LEVEL: 'silent' };
const load = (adminApiKey: string) => loadConfig({ ...base, ADMIN_API_KEY: adminApiKey });

describe('ADMIN_API_KEY', () => {
  it('is refused when shorter than 32 characters, naming the variable and the minimum', () => {
    for (const key of ['admin', 'sk_abc', 'x'.repeat(31), `  ${'y'.repeat(31)}  `]) {
      expect(() => load(key), key).toThrow(ConfigError);
      expect(() => load(key), key).toThrow(/ADMIN_API_KEY must have at least 32 characters/);
    }
  });

  it('is refused when no Authorization header could carry it', () => {
    expect(() => load(`${'a'.repeat(20)} ${'b'.repeat(20)}`)).toThrow(/ADMIN_API_KEY must be at most 200 characters without whitespace/);
    expect(() => load('c'.repeat(201))).toThrow(ConfigError);
  });

  it('is taken at 32 characters and more, and may be unset', () => {
    expect(load('k'.repeat(32)).adminApiKey).toBe('k'.repeat(32));
    expect(load(' 0123456789abcdef0123456789abcdef0123 ').adminApiKey).toBe('0123456789abcdef0123456789abcdef0123');
    expect(load('').adminApiKey).toBeUndefined();
    expect(loadConfig(base).adminApiKey).toBeUndefined();
  });

  it('takes every key the service generates, so the key printed on first start can be pasted back', () => {
    for (let i = 0; i < 20; i++) {
      const key = generateKey();
      expect(load(key).adminApiKey).toBe(key);
    }
  });
});
