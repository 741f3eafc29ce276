import { describe, expect, it } from '@jest/globals';
import type { Request } from 'express';
import { callerOf } from './caller.js';

const request = (fields: Partial<Request>) => fields as Request;

describe('callerOf', () => {
  it('should track an API key by the key, whoever owns it', () => {
    const caller = callerOf(
      request({ principal: { kind: 'api-key', userId: 1, role: 'user', apiKeyId: 7 } }),
    );
    expect(caller).toEqual({ tier: 'api-key', tracker: 'key:7' });
  });

  it('should track a bearer token by its user', () => {
    const caller = callerOf(
      request({ principal: { kind: 'user', userId: 3, role: 'admin' }, ip: '10.0.0.1' }),
    );
    expect(caller).toEqual({ tier: 'user', tracker: 'user:3' });
  });

  it('should track a caller without a valid credential by address', () => {
    expect(callerOf(request({ ip: '192.0.2.4' }))).toEqual({
      tier: 'anonymous',
      tracker: 'ip:192.0.2.4',
    });
  });

  it('should count an IPv4-mapped IPv6 address as the IPv4 address', () => {
    expect(callerOf(request({ ip: '::ffff:192.0.2.4' })).tracker).toBe('ip:192.0.2.4');
  });

  it('should count every address of an IPv6 /64 as one client', () => {
    const a = callerOf(request({ ip: '2001:db8:1:2:aaaa::1' })).tracker;
    const b = callerOf(request({ ip: '2001:db8:1:2:bbbb:cccc:dddd:eeee' })).tracker;
    const other = callerOf(request({ ip: '2001:db8:1:3::1' })).tracker;
    expect(a).toBe('ip:2001:db8:1:2::/64');
    expect(b).toBe(a);
    expect(other).not.toBe(a);
  });
});
