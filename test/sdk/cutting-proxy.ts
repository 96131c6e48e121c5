// A TCP proxy in front of the API whose open connections a test can cut, as a network drop or a
// restarted load balancer would: new connections go through as before.
import net from 'node:net';

export interface CuttingProxy {
  url: string;
  /** Connections made so far (each reconnection of a stream is one more). */
  connections: number;
  /** Destroys every open connection, both sides. */
  cutAll(): void;
  /** Sends new connections to another server (an API process that replaced the first). */
  retarget(target: string): void;
  close(): Promise<void>;
}

export async function startCuttingProxy(target: string): Promise<CuttingProxy> {
  let { hostname, port } = new URL(target);
  const open = new Set<net.Socket>();
  const proxy: CuttingProxy = {
    url: '',
    connections: 0,
    cutAll() {
      for (const socket of open) socket.destroy();
    },
    retarget(next) {
      ({ hostname, port } = new URL(next));
    },
    close: () =>
      new Promise((resolve) => {
        proxy.cutAll();
        server.close(() => resolve());
      }),
  };
  const server = net.createServer((client) => {
    proxy.connections++;
    const upstream = net.connect(Number(port), hostname);
    for (const socket of [client, upstream]) {
      open.add(socket);
      socket.on('close', () => open.delete(socket));
      socket.on('error', () => {});
    }
    client.pipe(upstream);
    upstream.pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxy.url = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
  return proxy;
}
