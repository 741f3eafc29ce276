import { describe, expect, it } from '@jest/globals';
import { addressRefusal, urlRefusal } from './address-policy.js';
import { BoundedLookup } from './bounded-lookup.js';

describe('addressRefusal', () => {
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
    ])('should always refuse %s (%s)', (ip, kind) => {
      expect(addressRefusal(ip, allowPrivate)).toContain(kind);
    });

    it.each(['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111', '::ffff:8.8.8.8'])(
      'should allow the public address %s',
      (ip) => {
        expect(addressRefusal(ip, allowPrivate)).toBeUndefined();
      },
    );

    it('should refuse what is not an IP address', () => {
      expect(addressRefusal('example.com', allowPrivate)).toBe('example.com is not an IP address');
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
  ])('should refuse %s (%s) unless private addresses are allowed', (ip, kind) => {
    expect(addressRefusal(ip, false)).toContain(kind);
    expect(addressRefusal(ip, true)).toBeUndefined();
  });

  it('should name the address and its kind, IPv4-mapped IPv6 shown as its IPv4', () => {
    expect(addressRefusal('169.254.169.254', true)).toBe('169.254.169.254 is a link-local address');
    expect(addressRefusal('::ffff:127.0.0.1', false)).toBe('127.0.0.1 is a loopback address');
  });

  it('should refuse the metadata addresses by name whatever the setting, their neighbours not', () => {
    for (const allowPrivate of [false, true]) {
      expect(addressRefusal('100.100.100.200', allowPrivate)).toBe(
        '100.100.100.200 is a cloud metadata address',
      );
      expect(addressRefusal('fd00:ec2::254', allowPrivate)).toBe(
        'fd00:ec2::254 is a cloud metadata address',
      );
    }
    expect(addressRefusal('100.100.100.201', true)).toBeUndefined();
    expect(addressRefusal('100.100.100.201', false)).toContain('carrier-grade NAT');
  });

  it('should not treat the edges of the private ranges as private', () => {
    expect(addressRefusal('172.32.0.1', false)).toBeUndefined();
    expect(addressRefusal('100.128.0.1', false)).toBeUndefined();
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
    await expect(urlRefusal(url, false)).resolves.toContain('127.0.0.1 is a loopback address');
    await expect(urlRefusal(url, true)).resolves.toBeUndefined();
  });

  it('should take a bracketed IPv6 literal without its brackets', async () => {
    await expect(urlRefusal('http://[::1]:3000/hook', false)).resolves.toBe(
      '::1 is a loopback address',
    );
    await expect(urlRefusal('http://[::1]:3000/hook', true)).resolves.toBeUndefined();
  });

  it('should refuse the metadata service whatever the setting', async () => {
    for (const allowPrivate of [false, true]) {
      await expect(urlRefusal('http://169.254.169.254/latest/', allowPrivate)).resolves.toBe(
        '169.254.169.254 is a link-local address',
      );
      await expect(urlRefusal('http://[fd00:ec2::254]/', allowPrivate)).resolves.toBe(
        'fd00:ec2::254 is a cloud metadata address',
      );
      await expect(urlRefusal('http://100.100.100.200/latest/', allowPrivate)).resolves.toBe(
        '100.100.100.200 is a cloud metadata address',
      );
      await expect(urlRefusal('http://[::ffff:169.254.169.254]/', allowPrivate)).resolves.toBe(
        '169.254.169.254 is a link-local address',
      );
    }
  });

  it('should resolve a host name and judge what it resolves to', async () => {
    await expect(urlRefusal('http://localhost:3000/hook', false)).resolves.toMatch(
      /^localhost resolves to a refused address: .* is a loopback address$/,
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
