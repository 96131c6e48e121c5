// A TLS front for a plaintext server, as a TLS-terminating load balancer before a Temporal frontend:
// it speaks TLS (HTTP/2 by ALPN, as gRPC clients ask) and, with `clientCa`, demands a client
// certificate signed by that CA (mutual TLS); the decrypted bytes go to the target unchanged (the
// Temporal dev server speaks HTTP/2 without TLS).
import fs from 'node:fs';
import net from 'node:net';
import tls from 'node:tls';
import type { AddressInfo } from 'node:net';

export interface TlsProxy {
  address: string;
  /** TLS handshakes refused (no client certificate, or one the CA did not sign). */
  refused: number;
  close(): Promise<void>;
}

export async function startTlsProxy(options: { target: string; cert: string; key: string; clientCa?: string }): Promise<TlsProxy> {
  const [host, port] = [
    options.target.slice(0, options.target.lastIndexOf(':')),
    Number(options.target.slice(options.target.lastIndexOf(':') + 1)),
  ];
  const sockets = new Set<net.Socket>();
  const server = tls.createServer(
    {
      cert: fs.readFileSync(options.cert),
      key: fs.readFileSync(options.key),
      ALPNProtocols: ['h2'],
      ...(options.clientCa ? { ca: fs.readFileSync(options.clientCa), requestCert: true, rejectUnauthorized: true } : {}),
    },
    (socket) => {
      const upstream = net.connect(port, host);
      sockets.add(socket).add(upstream);
      socket.pipe(upstream).pipe(socket);
      const close = () => {
        socket.destroy();
        upstream.destroy();
        sockets.delete(socket);
        sockets.delete(upstream);
      };
      socket.on('error', close).on('close', close);
      upstream.on('error', close).on('close', close);
    },
  );
  const proxy: TlsProxy = {
    address: '',
    refused: 0,
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
  server.on('tlsClientError', () => proxy.refused++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxy.address = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  return proxy;
}
