// A throwaway certificate authority with a server and a client certificate, made with openssl, for
// tests of TLS and mutual TLS: PEM files in a temporary folder, valid for two days.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface TestCertificates {
  dir: string;
  caCert: string;
  serverCert: string;
  serverKey: string;
  clientCert: string;
  clientKey: string;
  /** The DNS name in the server certificate. */
  serverName: string;
}

function openssl(dir: string, args: string[]): void {
  execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
}

/** A key and a certificate signed by the CA, for `usage` (serverAuth or clientAuth). */
function issue(dir: string, name: string, subject: string, extensions: string): void {
  fs.writeFileSync(path.join(dir, `${name}.ext`), extensions);
  openssl(dir, [
    'req',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:prime256v1',
    '-nodes',
    '-keyout',
    `${name}.key`,
    '-out',
    `${name}.csr`,
    '-subj',
    subject,
  ]);
  openssl(dir, [
    'x509',
    '-req',
    '-in',
    `${name}.csr`,
    '-CA',
    'ca.pem',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-days',
    '2',
    '-out',
    `${name}.pem`,
    '-extfile',
    `${name}.ext`,
  ]);
}

export function makeTestCertificates(serverName = 'temporal.test'): TestCertificates {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tls-'));
  openssl(dir, [
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:prime256v1',
    '-nodes',
    '-keyout',
    'ca.key',
    '-out',
    'ca.pem',
    '-days',
    '2',
    '-subj',
    '/CN=Test CA',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  ]);
  issue(dir, 'server', `/CN=${serverName}`, `subjectAltName=DNS:${serverName}\nextendedKeyUsage=serverAuth\nbasicConstraints=CA:FALSE\n`);
  issue(dir, 'client', '/CN=agent-service-test-client', 'extendedKeyUsage=clientAuth\nbasicConstraints=CA:FALSE\n');
  return {
    dir,
    caCert: path.join(dir, 'ca.pem'),
    serverCert: path.join(dir, 'server.pem'),
    serverKey: path.join(dir, 'server.key'),
    clientCert: path.join(dir, 'client.pem'),
    clientKey: path.join(dir, 'client.key'),
    serverName,
  };
}
