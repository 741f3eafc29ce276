import type { AddressInfo } from 'node:net';
import { isIPv6 } from 'node:net';
import { API_PREFIX, CONSOLE_PATH, DOCS_PATH } from '../common/http/route-space.js';

// What HOST=0.0.0.0 (the default) and HOST=:: bind: every interface of the machine.
const EVERY_INTERFACE = new Set(['0.0.0.0', '::']);

/**
 * The start-up line that says where the service listens: the address the server is bound
 * to, as it is (Nest's getUrl() says 127.0.0.1 for 0.0.0.0), then the URLs to open, on
 * localhost when every interface is bound, since a wildcard address is not one to browse to.
 */
export function listeningMessage({ address, port }: AddressInfo): string {
  const host = isIPv6(address) ? `[${address}]` : address;
  const bound = `http://${host}:${port}`;
  const everywhere = EVERY_INTERFACE.has(address);
  const url = everywhere ? `http://localhost:${port}` : bound;
  return `Listening on ${bound}${everywhere ? ' (every interface)' : ''}: API ${url}/${API_PREFIX}, console ${url}/${CONSOLE_PATH}, docs ${url}/${DOCS_PATH}`;
}
