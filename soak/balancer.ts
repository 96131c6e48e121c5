// The load balancer in front of the API processes, as production has one: each client connection goes
// to the next API that accepts it, bytes pass through untouched. A killed API drops its connections
// (clients see a reset, as behind a real balancer) and new ones go to the others until it is back.
import net from 'node:net';

export interface Balancer {
  url: string;
  /** Connections refused by every API at once (the client saw its connection closed). */
  readonly refused: number;
  close(): Promise<void>;
}

export async function startBalancer(backends: () => readonly number[]): Promise<Balancer> {
  const sockets = new Set<net.Socket>();
  let next = 0;
  let refused = 0;

  /** Tries each API once, starting after the last one used. */
  function connect(ports: readonly number[], tried = 0): Promise<net.Socket | undefined> {
    if (tried >= ports.length) return Promise.resolve(undefined);
    const port = ports[next++ % ports.length]!;
    return new Promise((resolve) => {
      const upstream = net.connect(port, '127.0.0.1');
      upstream.once('connect', () => resolve(upstream));
      upstream.once('error', () => resolve(connect(ports, tried + 1)));
    });
  }

  const server = net.createServer((client) => {
    sockets.add(client);
    client.once('close', () => sockets.delete(client));
    client.on('error', () => undefined);
    client.pause();
    void connect(backends()).then((upstream) => {
      if (!upstream) {
        refused += 1;
        client.destroy();
        return;
      }
      sockets.add(upstream);
      upstream.once('close', () => {
        sockets.delete(upstream);
        client.destroy();
      });
      upstream.on('error', () => undefined);
      client.once('close', () => upstream.destroy());
      client.pipe(upstream);
      upstream.pipe(client);
      client.resume();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    get refused() {
      return refused;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
