// How TEMPORAL_TLS* and TEMPORAL_API_KEY become the connection options of every process: plaintext
// by default, TLS when any of them asks for it, and a clear error for settings that cannot work.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { loadConfig } from '../../lib/config.ts';
import { temporalConnectionOptions } from '../../lib/temporal.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tls-config-'));
const pem = (name: string) => {
  const file = path.join(dir, name);
  fs.writeFileSync(file, `-----BEGIN CERTIFICATE-----\n${name}\n-----END CERTIFICATE-----\n`);
  return file;
};
const options = (env: Record<string, string>) =>
  temporalConnectionOptions(loadConfig({ TEMPORAL_ADDRESS: 'temporal.internal:7233', ...env }));

describe('Temporal connection settings', () => {
  test('plaintext unless asked', () => {
    expect(options({})).toEqual({ address: 'temporal.internal:7233' });
    expect(options({ TEMPORAL_TLS: 'false' })).toEqual({ address: 'temporal.internal:7233' });
  });

  test('TLS with the system roots, a CA of its own, a server name, mutual TLS', () => {
    expect(options({ TEMPORAL_TLS: 'true' })).toEqual({ address: 'temporal.internal:7233', tls: {} });
    const ca = pem('ca.pem');
    const [cert, key] = [pem('client.pem'), pem('client.key')];
    expect(options({ TEMPORAL_TLS_CA: ca, TEMPORAL_TLS_CERT: cert, TEMPORAL_TLS_KEY: key, TEMPORAL_TLS_SERVER_NAME: 'frontend' })).toEqual({
      address: 'temporal.internal:7233',
      tls: {
        serverNameOverride: 'frontend',
        serverRootCACertificate: fs.readFileSync(ca),
        clientCertPair: { crt: fs.readFileSync(cert), key: fs.readFileSync(key) },
      },
    });
  });

  test('an API key (Temporal Cloud) goes with every call, over TLS', () => {
    expect(options({ TEMPORAL_API_KEY: 'cloud-key' })).toEqual({ address: 'temporal.internal:7233', tls: {}, apiKey: 'cloud-key' });
  });

  test.each([
    [{ TEMPORAL_TLS_CERT: 'x' }, 'TEMPORAL_TLS_CERT names "x", which cannot be read'],
    [{ TEMPORAL_TLS_CERT: path.join(dir, 'only.pem') }, 'TEMPORAL_TLS_CERT and TEMPORAL_TLS_KEY go together'],
    [{ TEMPORAL_TLS: 'yes' }, 'TEMPORAL_TLS must be true or false, got "yes"'],
    [{ TEMPORAL_TLS: 'false', TEMPORAL_API_KEY: 'k' }, 'TEMPORAL_TLS=false contradicts'],
  ])('%o is refused: %s', (env, message) => {
    pem('only.pem');
    expect(() => options(env)).toThrow(message);
  });

  test('a file that is not PEM is refused, naming the variable', () => {
    const file = path.join(dir, 'not.pem');
    fs.writeFileSync(file, 'binary?');
    expect(() => options({ TEMPORAL_TLS_CA: file })).toThrow(`TEMPORAL_TLS_CA names "${file}", which is not a PEM file`);
  });
});
