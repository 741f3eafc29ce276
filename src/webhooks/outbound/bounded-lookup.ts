import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions } from 'node:dns';

/** `dns.lookup` in its `all: true` form, the only one used here. */
export type LookupAll = (
  hostname: string,
  options: LookupAllOptions,
  callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

/** A lookup given up on: its reason is meant for people, as the policy's are. */
export class LookupTimeoutError extends Error {
  readonly code = 'ERR_WEBHOOK_DNS_TIMEOUT';
}

interface Waiting {
  start: () => void;
}

/**
 * Host name lookups through the system resolver (so `localhost` and /etc/hosts keep working),
 * at most `maxRunning` at a time. Each getaddrinfo call holds one of libuv's threads, which
 * password hashing and file I/O share, until the resolver gives up, and nothing can cancel
 * it; a host whose DNS never answers could otherwise take them all. A lookup past its
 * deadline, queued or running, is answered with a `LookupTimeoutError` at once; a running
 * one keeps its place until the thread is free, so no further lookup starts meanwhile.
 */
export class BoundedLookup {
  private running = 0;
  private readonly queue: Waiting[] = [];

  constructor(
    private readonly maxRunning: number,
    private readonly lookup: LookupAll = dnsLookup,
  ) {}

  /** Every address of `hostname`, or the resolver's error, or a timeout after `timeoutMs`. */
  lookupAll(
    hostname: string,
    options: Omit<LookupAllOptions, 'all'>,
    timeoutMs: number,
  ): Promise<LookupAddress[]> {
    return new Promise((resolve, reject) => {
      let answered = false;
      const waiting: Waiting = {
        start: () => {
          this.running += 1;
          this.lookup(hostname, { ...options, all: true }, (error, addresses) => {
            this.running -= 1;
            this.startWaiting();
            if (answered) return;
            answered = true;
            clearTimeout(deadline);
            if (error !== null) reject(error);
            else resolve(addresses);
          });
        },
      };
      const deadline = setTimeout(() => {
        answered = true;
        const queued = this.queue.indexOf(waiting);
        if (queued !== -1) this.queue.splice(queued, 1);
        reject(
          new LookupTimeoutError(
            `${hostname} could not be resolved in time (no DNS answer within ${timeoutMs / 1000} s)`,
          ),
        );
      }, timeoutMs);
      this.queue.push(waiting);
      this.startWaiting();
    });
  }

  private startWaiting(): void {
    while (this.running < this.maxRunning && this.queue.length > 0) {
      this.queue.shift()?.start();
    }
  }
}

/**
 * The process's one bound, shared by every caller, as the thread pool is: two of its four
 * threads at most, so a stalled resolver leaves the others to argon2 and the file system.
 */
export const systemLookup = new BoundedLookup(2);
