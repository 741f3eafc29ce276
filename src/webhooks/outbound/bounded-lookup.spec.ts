import type { LookupAddress } from 'node:dns';
import { describe, expect, it } from '@jest/globals';
import { BoundedLookup, LookupTimeoutError, type LookupAll } from './bounded-lookup.js';

type Answer = (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void;

/** A resolver that answers only when the test says so, as a stalled system resolver would not. */
class HeldResolver {
  readonly calls: { hostname: string; answer: Answer }[] = [];
  readonly lookup: LookupAll = (hostname, _options, answer) => {
    this.calls.push({ hostname, answer });
  };

  hostnames(): string[] {
    return this.calls.map((call) => call.hostname);
  }
}

const ADDRESS: LookupAddress[] = [{ address: '93.184.215.14', family: 4 }];

describe(BoundedLookup.name, () => {
  it('should resolve through the system resolver by default, /etc/hosts included', async () => {
    const addresses = await new BoundedLookup(2).lookupAll('localhost', 5_000);
    expect(addresses.map((entry) => entry.address)).toEqual(
      expect.arrayContaining([expect.stringMatching(/^(127\.0\.0\.1|::1)$/)]),
    );
  });

  it('should pass the resolver error on', async () => {
    await expect(
      new BoundedLookup(2).lookupAll('no-such-host.invalid', 5_000),
    ).rejects.toMatchObject({ code: expect.stringMatching(/^E/) });
  });

  it('should run at most the cap at once, the third lookup waiting for a free place', async () => {
    const resolver = new HeldResolver();
    const bounded = new BoundedLookup(2, resolver.lookup);
    const lookups = ['a.test', 'b.test', 'c.test'].map((host) => bounded.lookupAll(host, 5_000));
    expect(resolver.hostnames()).toEqual(['a.test', 'b.test']);

    resolver.calls[1].answer(null, ADDRESS);
    await expect(lookups[1]).resolves.toEqual(ADDRESS);
    expect(resolver.hostnames()).toEqual(['a.test', 'b.test', 'c.test']);

    resolver.calls[0].answer(null, ADDRESS);
    resolver.calls[2].answer(null, ADDRESS);
    await expect(Promise.all([lookups[0], lookups[2]])).resolves.toEqual([ADDRESS, ADDRESS]);
  });

  it('should give up on a lookup that does not answer in time, saying so', async () => {
    const bounded = new BoundedLookup(2, new HeldResolver().lookup);
    const started = performance.now();
    const stuck = bounded.lookupAll('stuck.test', 200);
    await expect(stuck).rejects.toThrow(LookupTimeoutError);
    await expect(stuck).rejects.toThrow(
      'stuck.test could not be resolved in time (no DNS answer within 0.2 s)',
    );
    expect(performance.now() - started).toBeGreaterThanOrEqual(190);
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it('should keep a timed-out lookup place until its resolver answers, so no more start', async () => {
    const resolver = new HeldResolver();
    const bounded = new BoundedLookup(1, resolver.lookup);
    await expect(bounded.lookupAll('stuck.test', 50)).rejects.toThrow(LookupTimeoutError);

    const waiting = bounded.lookupAll('next.test', 5_000);
    expect(resolver.hostnames()).toEqual(['stuck.test']);

    resolver.calls[0].answer(null, ADDRESS);
    expect(resolver.hostnames()).toEqual(['stuck.test', 'next.test']);
    resolver.calls[1].answer(null, ADDRESS);
    await expect(waiting).resolves.toEqual(ADDRESS);
  });

  it('should give up on a queued lookup in time and never start it', async () => {
    const resolver = new HeldResolver();
    const bounded = new BoundedLookup(1, resolver.lookup);
    const running = bounded.lookupAll('slow.test', 5_000);

    await expect(bounded.lookupAll('queued.test', 100)).rejects.toThrow(
      'queued.test could not be resolved in time (no DNS answer within 0.1 s)',
    );
    resolver.calls[0].answer(null, ADDRESS);
    await expect(running).resolves.toEqual(ADDRESS);
    expect(resolver.hostnames()).toEqual(['slow.test']);
  });

  describe('one lookup per host name', () => {
    it('should make one lookup for concurrent lookups of a host, and answer each', async () => {
      const resolver = new HeldResolver();
      const bounded = new BoundedLookup(2, resolver.lookup);
      const lookups = [1, 2, 3].map(() => bounded.lookupAll('same.test', 5_000));
      expect(resolver.hostnames()).toEqual(['same.test']);

      resolver.calls[0].answer(null, ADDRESS);
      await expect(Promise.all(lookups)).resolves.toEqual([ADDRESS, ADDRESS, ADDRESS]);
    });

    it('should not give a host whose lookup is stuck past its deadline another place, leaving it to other hosts', async () => {
      const resolver = new HeldResolver();
      const bounded = new BoundedLookup(2, resolver.lookup);
      await expect(bounded.lookupAll('dead.test', 50)).rejects.toThrow(LookupTimeoutError);

      const again = bounded.lookupAll('dead.test', 100);
      const other = bounded.lookupAll('alive.test', 5_000);
      expect(resolver.hostnames()).toEqual(['dead.test', 'alive.test']);

      await expect(again).rejects.toThrow(
        'dead.test could not be resolved in time (no DNS answer within 0.1 s)',
      );
      resolver.calls[1].answer(null, ADDRESS);
      await expect(other).resolves.toEqual(ADDRESS);
      expect(resolver.hostnames()).toEqual(['dead.test', 'alive.test']);
    });

    it('should answer a lookup that joined a stuck one when it answers at last', async () => {
      const resolver = new HeldResolver();
      const bounded = new BoundedLookup(2, resolver.lookup);
      await expect(bounded.lookupAll('slow.test', 50)).rejects.toThrow(LookupTimeoutError);
      const joined = bounded.lookupAll('slow.test', 5_000);

      resolver.calls[0].answer(null, ADDRESS);
      await expect(joined).resolves.toEqual(ADDRESS);
      expect(resolver.hostnames()).toEqual(['slow.test']);
    });

    it('should pass one lookup’s error to every lookup that shared it', async () => {
      const resolver = new HeldResolver();
      const bounded = new BoundedLookup(2, resolver.lookup);
      const lookups = [1, 2].map(() => bounded.lookupAll('gone.test', 5_000));

      resolver.calls[0].answer(Object.assign(new Error('not found'), { code: 'ENOTFOUND' }), []);
      for (const lookup of lookups) {
        await expect(lookup).rejects.toMatchObject({ code: 'ENOTFOUND' });
      }
    });

    it('should ask again once a host’s lookup has answered', async () => {
      const resolver = new HeldResolver();
      const bounded = new BoundedLookup(2, resolver.lookup);
      const first = bounded.lookupAll('again.test', 5_000);
      resolver.calls[0].answer(null, ADDRESS);
      await first;

      const second = bounded.lookupAll('again.test', 5_000);
      expect(resolver.hostnames()).toEqual(['again.test', 'again.test']);
      resolver.calls[1].answer(null, ADDRESS);
      await expect(second).resolves.toEqual(ADDRESS);
    });
  });
});
