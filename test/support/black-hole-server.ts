import { spawn } from 'node:child_process';
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

export interface UnacceptingServer {
  endpoint: string;
  stop(): Promise<void>;
}

// Run in a process of its own, whose event loop then blocks for good: libuv never calls
// accept(), so the kernel completes as many handshakes as the backlog holds, and no more.
const LISTEN_AND_FREEZE = `
const server = require('node:net').createServer();
server.listen({ port: 0, host: '127.0.0.1', backlog: 1 }, () => {
  process.stdout.write(server.address().port + '\\n', () =>
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0));
});`;

/**
 * A server whose connections are never established: its accept queue is full (filled here),
 * so the kernel drops every further SYN and a client's connect() hangs. The bucket host that
 * is down behind a firewall that drops packets.
 */
export async function startUnacceptingServer(): Promise<UnacceptingServer> {
  const child = spawn(process.execPath, ['-e', LISTEN_AND_FREEZE], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`listener exited ${code}`)));
    child.stdout.once('data', (chunk: Buffer) => resolve(Number(chunk.toString().trim())));
  });
  // Backlog 1 queues two completed handshakes: take both, so the next connect() hangs.
  const fillers: Socket[] = [];
  for (let i = 0; i < 2; i += 1) {
    const socket = net.connect(port, '127.0.0.1');
    socket.on('error', () => undefined);
    fillers.push(socket);
    await new Promise((resolve) => socket.once('connect', resolve));
  }
  return {
    endpoint: `http://127.0.0.1:${port}`,
    stop: async () => {
      fillers.forEach((socket) => socket.destroy());
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    },
  };
}
