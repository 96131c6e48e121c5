// A TCP proxy in front of a server (Temporal's frontend) whose replies can be held back: requests still
// reach the server and are carried out, but their answers do not come back until released, as when a
// call's deadline expires after the server took it. Bytes are forwarded as they are, in order. The
// server's side is read as HTTP/2 frames, so a test can wait until the server has answered a call
// whose answer is held (gRPC over HTTP/2: a stream the server ends is a call it answered).
import net from 'node:net';

export interface TcpProxy {
  /** host:port to point a client at. */
  address: string;
  /** From now on, keep what the server sends instead of passing it on. */
  holdReplies(): void;
  /** Resolves once the server has answered `count` calls since holdReplies (their answers held). */
  answersHeld(count?: number): Promise<void>;
  /** Pass on what was kept, and everything after it. */
  releaseReplies(): void;
  close(): Promise<void>;
}

const FRAME_HEADER_BYTES = 9;
const END_STREAM = 0x1;
/** DATA, HEADERS (END_STREAM ends the stream) and RST_STREAM. */
const DATA = 0x0;
const HEADERS = 0x1;
const RST_STREAM = 0x3;

/** Counts the streams a server ends, from its side of one HTTP/2 connection (which starts with a frame). */
function streamEnds(onEnd: () => void): (chunk: Buffer) => void {
  let pending = Buffer.alloc(0);
  return (chunk) => {
    pending = Buffer.concat([pending, chunk]);
    while (pending.length >= FRAME_HEADER_BYTES) {
      const length = pending.readUIntBE(0, 3);
      if (pending.length < FRAME_HEADER_BYTES + length) return;
      const [type, flags] = [pending[3]!, pending[4]!];
      if (((type === DATA || type === HEADERS) && flags & END_STREAM) || type === RST_STREAM) onEnd();
      pending = pending.subarray(FRAME_HEADER_BYTES + length);
    }
  };
}

export async function startTcpProxy(target: string): Promise<TcpProxy> {
  const separator = target.lastIndexOf(':');
  const [host, port] = [target.slice(0, separator), Number(target.slice(separator + 1))];
  const sockets = new Set<net.Socket>();
  let holding = false;
  const held: Array<{ to: net.Socket; chunk: Buffer }> = [];
  let answered = 0;
  const waiters = new Set<{ count: number; resolve: () => void }>();
  const onAnswer = () => {
    if (!holding) return;
    answered++;
    for (const waiter of waiters) {
      if (answered < waiter.count) continue;
      waiters.delete(waiter);
      waiter.resolve();
    }
  };
  const server = net.createServer((client) => {
    const upstream = net.connect(port, host);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => undefined);
      socket.on('close', () => {
        sockets.delete(socket);
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream);
    const frames = streamEnds(onAnswer);
    upstream.on('data', (chunk: Buffer) => {
      if (holding) held.push({ to: client, chunk });
      else client.write(chunk);
      frames(chunk);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    address: `127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    holdReplies() {
      holding = true;
      answered = 0;
    },
    answersHeld(count = 1) {
      return answered >= count ? Promise.resolve() : new Promise((resolve) => waiters.add({ count, resolve }));
    },
    releaseReplies() {
      holding = false;
      for (const { to, chunk } of held.splice(0)) if (!to.destroyed) to.write(chunk);
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
