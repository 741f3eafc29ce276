import net, { type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

export interface BlackHoleServer {
  /** `http://127.0.0.1:PORT`, usable as an S3 endpoint. */
  endpoint: string;
  /** Connections accepted so far. */
  readonly accepted: number;
  /** From now on, pass connections through to `port` (a real server) instead of swallowing them. */
  forwardTo(port: number | undefined): void;
  stop(): Promise<void>;
}

/**
 * A TCP server on a free loopback port that accepts every connection and never answers: the
 * bucket that hangs. Until told otherwise it can forward to a real server instead, so that a
 * test can store objects first and then make the same endpoint go silent; switching drops the
 * connections open so far, as a failing server's would be.
 */
export async function startBlackHoleServer(): Promise<BlackHoleServer> {
  const sockets = new Set<Socket>();
  let target: number | undefined;
  let accepted = 0;
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
  };
  const server = net.createServer((socket) => {
    accepted += 1;
    track(socket);
    if (target === undefined) return; // Read nothing, answer nothing, close nothing.
    const upstream = net.connect(target, '127.0.0.1');
    track(upstream);
    socket.pipe(upstream).pipe(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const dropAll = () => sockets.forEach((socket) => socket.destroy());
  return {
    endpoint: `http://127.0.0.1:${port}`,
    get accepted() {
      return accepted;
    },
    forwardTo(next) {
      target = next;
      dropAll();
    },
    stop: async () => {
      dropAll();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
