// How the service reaches a Temporal frontend that wants TLS (a self-hosted cluster), mutual TLS
// (client certificates) or an API key (Temporal Cloud), from the environment:
//   TEMPORAL_TLS=true                 TLS with the system's root certificates
//   TEMPORAL_TLS_CA=<path>            TLS, trusting this CA (PEM) for the server's certificate
//   TEMPORAL_TLS_CERT / _KEY=<path>   mutual TLS: this client certificate and its key (PEM), both or neither
//   TEMPORAL_TLS_SERVER_NAME=<name>   the name the server's certificate is checked against (else the address's host)
//   TEMPORAL_API_KEY=<key>            an API key sent with every call (Temporal Cloud); implies TLS
// Files are read once, at start: a path that cannot be read stops the process naming the variable.
import fs from 'node:fs';
import { ConfigError } from './config-error.ts';

export interface TemporalTls {
  /** PEM of the CA that signed the server's certificate; none: the system's roots. */
  ca?: Buffer;
  /** Mutual TLS: the client's certificate and key (PEM). */
  clientCert?: { cert: Buffer; key: Buffer };
  serverName?: string;
}

export interface TemporalSecurity {
  /** undefined: plaintext (the dev server, a cluster on a private network). */
  tls: TemporalTls | undefined;
  apiKey: string | undefined;
}

type Env = Record<string, string | undefined>;

function value(env: Env, name: string): string | undefined {
  const raw = env[name]?.trim();
  return raw ? raw : undefined;
}

function pemFile(env: Env, name: string): Buffer | undefined {
  const file = value(env, name);
  if (file === undefined) return undefined;
  let pem: Buffer;
  try {
    pem = fs.readFileSync(file);
  } catch (error) {
    throw new ConfigError(`${name} names "${file}", which cannot be read: ${(error as Error).message}`);
  }
  if (!pem.toString('utf8').includes('-----BEGIN ')) throw new ConfigError(`${name} names "${file}", which is not a PEM file`);
  return pem;
}

export function temporalSecurity(env: Env): TemporalSecurity {
  const flag = value(env, 'TEMPORAL_TLS');
  if (flag !== undefined && !['true', 'false', '1', '0'].includes(flag)) {
    throw new ConfigError(`TEMPORAL_TLS must be true or false, got "${flag}"`);
  }
  const ca = pemFile(env, 'TEMPORAL_TLS_CA');
  const cert = pemFile(env, 'TEMPORAL_TLS_CERT');
  const key = pemFile(env, 'TEMPORAL_TLS_KEY');
  if (!cert !== !key) throw new ConfigError('TEMPORAL_TLS_CERT and TEMPORAL_TLS_KEY go together: set both for mutual TLS, or neither');
  const serverName = value(env, 'TEMPORAL_TLS_SERVER_NAME');
  const apiKey = value(env, 'TEMPORAL_API_KEY');
  const off = flag === 'false' || flag === '0';
  const needsTls = !!ca || !!cert || !!serverName || !!apiKey;
  if (off && needsTls) {
    throw new ConfigError('TEMPORAL_TLS=false contradicts TEMPORAL_TLS_CA, _CERT, _SERVER_NAME and TEMPORAL_API_KEY, which need TLS');
  }
  if (off || (!needsTls && flag === undefined)) return { tls: undefined, apiKey: undefined };
  return {
    tls: { ...(ca ? { ca } : {}), ...(cert && key ? { clientCert: { cert, key } } : {}), ...(serverName ? { serverName } : {}) },
    apiKey,
  };
}
