import { describe, expect, it } from '@jest/globals';
import type { Request, Response } from 'express';
import helmet, { type HelmetOptions } from 'helmet';
import { securityHeaders } from './security-headers.js';

/** The headers a middleware sets on a response, and whether it passed the request on. */
function headersSetBy(
  middleware: (request: Request, response: Response, next: () => void) => void,
): { headers: Record<string, string>; next: boolean } {
  const headers: Record<string, string> = {};
  const response = {
    setHeader: (name: string, value: string) => (headers[name.toLowerCase()] = value),
    setHeaders: (all: Map<string, string>) => all.forEach((v, k) => (headers[k.toLowerCase()] = v)),
    removeHeader: (name: string) => delete headers[name.toLowerCase()],
  };
  let next = false;
  middleware({} as Request, response as unknown as Response, () => (next = true));
  return { headers, next };
}

describe(securityHeaders.name, () => {
  const options: HelmetOptions = {
    contentSecurityPolicy: {
      useDefaults: false,
      directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] },
    },
    crossOriginResourcePolicy: { policy: 'cross-origin' },
  };
  const byHelmet = (request: Request, response: Response, next: () => void) =>
    helmet(options)(request, response, next);

  it('should set every header helmet() sets, with its values, and pass the request on', () => {
    const expected = headersSetBy(byHelmet);
    expect(Object.keys(expected.headers).length).toBeGreaterThan(10);
    expect(headersSetBy(securityHeaders(options))).toEqual(expected);
  });
});
