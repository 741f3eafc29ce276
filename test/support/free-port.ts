import { readFile } from 'node:fs/promises';
import { createServer } from 'node:net';

const LOWEST_PORT = 10_000;

/**
 * Where the kernel's own choices start (a listen on port 0, an outgoing connection's local
 * port): freePort picks below it.
 */
async function ephemeralPortsStart(): Promise<number> {
  try {
    const range = await readFile('/proc/sys/net/ipv4/ip_local_port_range', 'utf8');
    return Number(range.trim().split(/\s+/)[0]);
  } catch {
    return 32_768;
  }
}

function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/**
 * A TCP port on the loopback interface that nothing listens on right now, for a process
 * that binds it later. Outside the ephemeral range: a port the kernel handed out for
 * port 0 was once given again to another suite's server between this check and the
 * service's start, and the test talked to that server.
 */
export async function freePort(): Promise<number> {
  const end = Math.max(await ephemeralPortsStart(), LOWEST_PORT + 1_000);
  for (;;) {
    const port = LOWEST_PORT + Math.floor(Math.random() * (end - LOWEST_PORT));
    if (await isFree(port)) return port;
  }
}
