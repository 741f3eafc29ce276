import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions } from 'node:dns';

/** `dns.lookup` in its `all: true` form, the only one used here. */
export type LookupAll = (
  hostname: string,
  options: LookupAllOptions,
  callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

/**
 * What every lookup asks: all addresses, in the resolver's order, without `ADDRCONFIG`, so
 * that the policy judges every address a name has (net's happy eyeballs skips a family the
 * machine cannot reach). One set of options is what lets lookups of a host share one call.
 */
const LOOKUP_OPTIONS: LookupAllOptions = { all: true, order: 'verbatim' };

/** A lookup given up on: its reason is meant for people, as the policy's are. */
export class LookupTimeoutError extends Error {
  readonly code = 'ERR_WEBHOOK_DNS_TIMEOUT';
}

type Answer = (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void;

/** One resolver call for a host name, and the lookups still waiting for its answer. */
interface HostLookup {
  hostname: string;
  waiting: Set<Answer>;
  started: boolean;
}

/**
 * Host name lookups through the system resolver (so `localhost` and /etc/hosts keep working),
 * at most `maxRunning` resolver calls at a time and one per host name. Each getaddrinfo call
 * holds one of libuv's threads, which password hashing and file I/O share, until the resolver
 * gives up, and nothing can cancel it: hence the cap. And were each lookup its own call, one
 * host whose DNS never answers would soon fill the cap by itself, its deliveries to several
 * pets and their retries each starting one, and every other host would wait. So a lookup
 * shares its host's call that is running or queued, even once every earlier lookup has given
 * up on it: a stalled host holds one place at most. A lookup past its deadline is answered
 * with a `LookupTimeoutError` at once; a queued call nobody waits for any more is dropped, and
 * a running one keeps its place until its thread is free.
 */
export class BoundedLookup {
  private running = 0;
  private readonly byHost = new Map<string, HostLookup>();
  private readonly queue: HostLookup[] = [];

  constructor(
    private readonly maxRunning: number,
    private readonly lookup: LookupAll = dnsLookup,
  ) {}

  /** Every address of `hostname`, or the resolver's error, or a timeout after `timeoutMs`. */
  lookupAll(hostname: string, timeoutMs: number): Promise<LookupAddress[]> {
    return new Promise((resolve, reject) => {
      const host = this.hostLookup(hostname);
      const answer: Answer = (error, addresses) => {
        clearTimeout(deadline);
        if (error !== null) reject(error);
        else resolve(addresses);
      };
      const deadline = setTimeout(() => {
        host.waiting.delete(answer);
        if (!host.started && host.waiting.size === 0) this.forget(host);
        reject(
          new LookupTimeoutError(
            `${hostname} could not be resolved in time (no DNS answer within ${timeoutMs / 1000} s)`,
          ),
        );
      }, timeoutMs);
      host.waiting.add(answer);
      this.startWaiting();
    });
  }

  /** The host's call in flight or queued, or a new one queued. */
  private hostLookup(hostname: string): HostLookup {
    const existing = this.byHost.get(hostname);
    if (existing !== undefined) return existing;
    const host: HostLookup = { hostname, waiting: new Set(), started: false };
    this.byHost.set(hostname, host);
    this.queue.push(host);
    return host;
  }

  private forget(host: HostLookup): void {
    this.byHost.delete(host.hostname);
    const queued = this.queue.indexOf(host);
    if (queued !== -1) this.queue.splice(queued, 1);
  }

  private startWaiting(): void {
    while (this.running < this.maxRunning && this.queue.length > 0) {
      const host = this.queue.shift();
      if (host !== undefined) this.start(host);
    }
  }

  private start(host: HostLookup): void {
    host.started = true;
    this.running += 1;
    this.lookup(host.hostname, LOOKUP_OPTIONS, (error, addresses) => {
      this.running -= 1;
      this.byHost.delete(host.hostname);
      for (const answer of host.waiting) answer(error, addresses);
      this.startWaiting();
    });
  }
}

/**
 * The process's one bound, shared by every caller, as the thread pool is: two of its four
 * threads at most, so a stalled resolver leaves the others to argon2 and the file system.
 */
export const systemLookup = new BoundedLookup(2);
