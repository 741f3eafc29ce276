import { readFileSync } from 'node:fs';

// Linux's tables of TCP sockets: `sl local_address rem_address st tx_queue:rx_queue ...`,
// addresses as hex `address:port`. For a listening socket (st 0A), rx_queue counts the
// connections the kernel has completed and no accept() has taken yet.
const TABLES = ['/proc/net/tcp', '/proc/net/tcp6'];
const LISTEN = '0A';

/**
 * How many connections to `port` the kernel holds for the listener, not accepted yet;
 * undefined where the kernel does not tell (not Linux).
 */
export function acceptQueueLength(port: number): number | undefined {
  const hexPort = `:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  let length: number | undefined;
  for (const table of TABLES) {
    let text: string;
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    length ??= 0;
    for (const line of text.split('\n')) {
      const [, local, , state, queues] = line.trim().split(/\s+/);
      if (state === LISTEN && local?.endsWith(hexPort)) {
        length += parseInt(queues.split(':')[1], 16);
      }
    }
  }
  return length;
}
