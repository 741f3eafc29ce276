import { describe, expect, it } from '@jest/globals';
import type { Request } from 'express';
import { ApiException } from '../../common/errors/api-exception.js';
import { assertOwnOrigin, refreshCookieOf } from './refresh-cookie.js';

function requestWith(headers: Record<string, string>, protocol = 'http'): Request {
  const lower = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
  return { protocol, get: (name: string) => lower[name.toLowerCase()] } as unknown as Request;
}

describe(refreshCookieOf.name, () => {
  it.each([
    ['petstore_refresh=rt_abc', 'rt_abc'],
    ['a=1; petstore_refresh=rt_abc; b=2', 'rt_abc'],
    [' petstore_refresh = rt_abc ', 'rt_abc'],
    ['x_petstore_refresh=rt_abc', undefined],
    ['petstore_refresh=', undefined],
    ['petstore_refresh', undefined],
    ['', undefined],
  ])('should read %j as %j', (header, expected) => {
    expect(refreshCookieOf(requestWith(header ? { Cookie: header } : {}))).toBe(expected);
  });
});

describe(assertOwnOrigin.name, () => {
  const refusal = (request: Request, publicBaseUrl?: string) => {
    try {
      assertOwnOrigin(request, publicBaseUrl);
      return undefined;
    } catch (error) {
      return error instanceof ApiException ? error.code : error;
    }
  };

  it("should accept PUBLIC_BASE_URL's origin, whatever its path", () => {
    const request = requestWith({ Origin: 'https://pets.example', Host: 'internal:3000' });
    expect(refusal(request, 'https://pets.example/base')).toBeUndefined();
  });

  it('should refuse another scheme, host or port, a null origin and none', () => {
    for (const origin of [
      'http://pets.example',
      'https://pets.example:444',
      'https://evil.example',
      'null',
    ]) {
      expect(refusal(requestWith({ Origin: origin }), 'https://pets.example')).toBe(
        'ORIGIN_NOT_ALLOWED',
      );
    }
    expect(refusal(requestWith({}), 'https://pets.example')).toBe('ORIGIN_NOT_ALLOWED');
  });

  it('should take the origin the request was sent to without PUBLIC_BASE_URL', () => {
    expect(
      refusal(requestWith({ Origin: 'https://pets.internal', Host: 'pets.internal' }, 'https')),
    ).toBeUndefined();
    expect(
      refusal(requestWith({ Origin: 'http://pets.internal', Host: 'pets.internal' }, 'https')),
    ).toBe('ORIGIN_NOT_ALLOWED');
  });
});
