import { isIP } from 'node:net';
import { describe, expect, it } from '@jest/globals';
import { refusedKind, urlRefusal } from './address-policy.js';
import { BoundedLookup, type LookupAll } from './bounded-lookup.js';

/** A resolver answering from a table, as DNS would for these names. */
const resolverOf =
  (answers: Record<string, string[]>): LookupAll =>
  (hostname, _options, callback) =>
    callback(
      null,
      (answers[hostname] ?? []).map((address) => ({ address, family: isIP(address) })),
    );

describe('refusedKind', () => {
  describe.each([false, true])('with allowPrivate=%s', (allowPrivate) => {
    it.each([
      ['0.0.0.0', 'unspecified'],
      ['::', 'unspecified'],
      ['255.255.255.255', 'broadcast'],
      ['224.0.0.1', 'multicast'],
      ['ff02::1', 'multicast'],
      ['169.254.0.1', 'link-local'],
      ['169.254.169.254', 'link-local'],
      ['fe80::1', 'link-local'],
      ['fe80::1%eth0', 'link-local'],
      ['fd00:ec2::254', 'cloud metadata'],
      ['fd00:ec2::254%eth0', 'cloud metadata'],
      ['100.100.100.200', 'cloud metadata'],
      ['::ffff:100.100.100.200', 'cloud metadata'],
      ['::ffff:169.254.169.254', 'link-local'],
      ['192.0.2.1', 'reserved'],
      ['198.51.100.7', 'reserved'],
      ['203.0.113.9', 'reserved'],
      ['240.0.0.1', 'reserved'],
      ['198.18.0.1', 'reserved'],
      ['2001:db8::1', 'reserved'],
      ['2001:2::1', 'benchmarking'],
      ['64:ff9b::7f00:1', 'special-purpose'],
      ['168.63.129.16', 'cloud metadata'],
      ['::ffff:168.63.129.16', 'cloud metadata'],
      ['::a83f:8110', 'cloud metadata'],
      ['::a9fe:a9fe', 'link-local'],
      ['::2', 'unspecified'],
    ])('should always refuse %s (%s)', (ip, kind) => {
      expect(refusedKind(ip, allowPrivate)).toContain(kind);
    });

    it.each(['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111', '::ffff:8.8.8.8'])(
      'should allow the public address %s',
      (ip) => {
        expect(refusedKind(ip, allowPrivate)).toBeUndefined();
      },
    );

    it('should refuse what is not an IP address', () => {
      expect(refusedKind('example.com', allowPrivate)).toBe('not an IP address');
    });
  });

  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['::1', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.254', 'private'],
    ['192.168.1.1', 'private'],
    ['fc00::1', 'unique-local'],
    ['fd12:3456::1', 'unique-local'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['::7f00:1', 'loopback'],
    ['::a00:1', 'private'],
  ])('should refuse %s (%s) unless private addresses are allowed', (ip, kind) => {
    expect(refusedKind(ip, false)).toContain(kind);
    expect(refusedKind(ip, true)).toBeUndefined();
  });

  it('should name the kind only, IPv4-mapped and IPv4-compatible IPv6 judged as their IPv4', () => {
    expect(refusedKind('169.254.169.254', true)).toBe('a link-local address');
    expect(refusedKind('::ffff:127.0.0.1', false)).toBe('a loopback address');
    expect(refusedKind('::7f00:1', false)).toBe('a loopback address');
    expect(refusedKind('::1', false)).toBe('a loopback address');
  });

  it('should refuse the metadata addresses by name whatever the setting, their neighbours not', () => {
    for (const allowPrivate of [false, true]) {
      for (const ip of ['100.100.100.200', 'fd00:ec2::254', '168.63.129.16']) {
        expect(refusedKind(ip, allowPrivate)).toBe('a cloud metadata address');
      }
    }
    expect(refusedKind('100.100.100.201', true)).toBeUndefined();
    expect(refusedKind('100.100.100.201', false)).toContain('carrier-grade NAT');
  });

  it('should not treat the edges of the private ranges as private', () => {
    expect(refusedKind('172.32.0.1', false)).toBeUndefined();
    expect(refusedKind('100.128.0.1', false)).toBeUndefined();
  });
});

describe('urlRefusal', () => {
  it('should allow a public IP literal without asking DNS', async () => {
    await expect(urlRefusal('https://93.184.215.14/hooks', false)).resolves.toBeUndefined();
    await expect(urlRefusal('http://[2606:4700::1111]:8080/', false)).resolves.toBeUndefined();
  });

  it.each([
    'http://127.0.0.1:3000/hook',
    'http://[::ffff:127.0.0.1]/hook',
    'http://2130706433/',
    'http://0x7f000001/',
    'http://0177.0.0.1/',
    'http://127.1/',
  ])('should refuse the loopback URL %s unless private addresses are allowed', async (url) => {
    await expect(urlRefusal(url, false)).resolves.toBe('the host is a loopback address');
    await expect(urlRefusal(url, true)).resolves.toBeUndefined();
  });

  it('should take a bracketed IPv6 literal without its brackets', async () => {
    await expect(urlRefusal('http://[::1]:3000/hook', false)).resolves.toBe(
      'the host is a loopback address',
    );
    await expect(urlRefusal('http://[::1]:3000/hook', true)).resolves.toBeUndefined();
  });

  it('should refuse the metadata service whatever the setting', async () => {
    for (const allowPrivate of [false, true]) {
      await expect(urlRefusal('http://169.254.169.254/latest/', allowPrivate)).resolves.toBe(
        'the host is a link-local address',
      );
      await expect(urlRefusal('http://[fd00:ec2::254]/', allowPrivate)).resolves.toBe(
        'the host is a cloud metadata address',
      );
      await expect(urlRefusal('http://100.100.100.200/latest/', allowPrivate)).resolves.toBe(
        'the host is a cloud metadata address',
      );
      await expect(urlRefusal('http://[::ffff:169.254.169.254]/', allowPrivate)).resolves.toBe(
        'the host is a link-local address',
      );
    }
  });

  it('should resolve a host name and judge what it resolves to', async () => {
    await expect(urlRefusal('http://localhost:3000/hook', false)).resolves.toBe(
      'localhost resolves to a loopback address',
    );
    await expect(urlRefusal('http://localhost:3000/hook', true)).resolves.toBeUndefined();
  });

  it('should refuse a host that does not resolve', async () => {
    await expect(urlRefusal('https://no-such-host.invalid/hook', true)).resolves.toMatch(
      /^no-such-host\.invalid could not be resolved \(DNS failure/,
    );
  });

  it('should refuse a host whose DNS does not answer within 5 s', async () => {
    const silent = new BoundedLookup(2, () => undefined);
    const started = performance.now();
    await expect(urlRefusal('https://stalled.example/hook', true, silent)).resolves.toBe(
      'stalled.example could not be resolved in time (no DNS answer within 5 s)',
    );
    expect(performance.now() - started).toBeGreaterThanOrEqual(4_900);
    expect(performance.now() - started).toBeLessThan(7_000);
  }, 10_000);

  describe('IPv4-compatible IPv6 (::/96), judged as the IPv4 address it embeds', () => {
    it.each([
      ['http://[::127.0.0.1]/hook', 'a loopback address'],
      ['http://[::7f00:1]:8080/hook', 'a loopback address'],
      ['http://[::a00:1]/hook', 'a private address'],
      ['http://[::c0a8:101]/hook', 'a private address'],
    ])('should refuse %s as %s unless private addresses are allowed', async (url, kind) => {
      await expect(urlRefusal(url, false)).resolves.toBe(`the host is ${kind}`);
      await expect(urlRefusal(url, true)).resolves.toBeUndefined();
    });

    it.each([
      ['http://[::a9fe:a9fe]/latest/', 'a link-local address'],
      ['http://[::169.254.169.254]/latest/', 'a link-local address'],
      ['http://[::a83f:8110]/', 'a cloud metadata address'],
      ['http://[::6464:64c8]/', 'a cloud metadata address'],
      ['http://[::2]/', 'an unspecified address'],
    ])('should always refuse %s as %s', async (url, kind) => {
      for (const allowPrivate of [false, true]) {
        await expect(urlRefusal(url, allowPrivate)).resolves.toBe(`the host is ${kind}`);
      }
    });

    it('should allow one that embeds a public address, and keep :: and ::1 as IPv6', async () => {
      await expect(urlRefusal('http://[::808:808]/', false)).resolves.toBeUndefined();
      await expect(urlRefusal('http://[::1]/', true)).resolves.toBeUndefined();
      await expect(urlRefusal('http://[::]/', true)).resolves.toBe(
        'the host is an unspecified address',
      );
    });
  });

  it('should refuse Azure’s wire server 168.63.129.16 as a metadata address whatever the setting', async () => {
    for (const allowPrivate of [false, true]) {
      for (const url of ['http://168.63.129.16/machine', 'http://[::ffff:a83f:8110]/machine']) {
        await expect(urlRefusal(url, allowPrivate)).resolves.toBe(
          'the host is a cloud metadata address',
        );
      }
    }
    await expect(urlRefusal('http://168.63.129.17/', false)).resolves.toBeUndefined();
  });

  describe('a host name, with what it resolves to never in the reason', () => {
    const lookup = new BoundedLookup(
      2,
      resolverOf({
        'internal.test': ['8.8.8.8', '10.1.2.3'],
        'compat.test': ['::7f00:1'],
        'wire.test': ['168.63.129.16'],
        'mapped.test': ['::ffff:169.254.169.254'],
        'public.test': ['8.8.8.8', '2606:4700:4700::1111'],
      }),
    );

    it.each([
      ['internal.test', false, 'internal.test resolves to a private address'],
      ['compat.test', false, 'compat.test resolves to a loopback address'],
      ['wire.test', true, 'wire.test resolves to a cloud metadata address'],
      ['mapped.test', true, 'mapped.test resolves to a link-local address'],
    ])('should refuse %s (allowPrivate=%s), naming the rule only', async (host, allow, reason) => {
      await expect(urlRefusal(`https://${host}/hook`, allow, lookup)).resolves.toBe(reason);
    });

    it('should allow a host whose every address is allowed', async () => {
      await expect(urlRefusal('https://public.test/hook', false, lookup)).resolves.toBeUndefined();
      await expect(urlRefusal('https://compat.test/hook', true, lookup)).resolves.toBeUndefined();
    });
  });

  it.each([
    ['ftp://example.com/hook', 'must use the http or https scheme'],
    ['file:///etc/passwd', 'must use the http or https scheme'],
    ['https://user:secret@example.com/hook', 'must not contain a username or password'],
    ['https://user@example.com/hook', 'must not contain a username or password'],
    ['/relative/hook', 'is not a valid absolute URL'],
  ])('should refuse %s', async (url, reason) => {
    await expect(urlRefusal(url, true)).resolves.toBe(reason);
  });
});
