import { describe, expect, it } from '@jest/globals';
import type { Request } from 'express';
import { MAX_INPUT_DEPTH } from '../common/pipes/safe-input.pipe.js';
import { canonicalJson, requestFingerprint } from './request-fingerprint.js';

const request = (fields: Partial<Request>) =>
  ({ method: 'POST', originalUrl: '/v1/pets', body: {}, ...fields }) as Request;

const nested = (depth: number): unknown => (depth === 0 ? 1 : { a: nested(depth - 1) });

describe('canonicalJson', () => {
  it('should sort object keys at every level and keep array order', () => {
    expect(canonicalJson({ b: [{ d: 1, c: 2 }, 3], a: null })).toBe(
      '{"a":null,"b":[{"c":2,"d":1},3]}',
    );
  });

  it('should keep a __proto__ key as data', () => {
    expect(canonicalJson(JSON.parse('{"__proto__":{"x":1}}'))).toBe('{"__proto__":{"x":1}}');
  });

  it('should give up past the depth SafeInputPipe refuses', () => {
    expect(canonicalJson(nested(MAX_INPUT_DEPTH))).toBeDefined();
    expect(canonicalJson(nested(MAX_INPUT_DEPTH + 2))).toBeUndefined();
  });
});

describe('requestFingerprint', () => {
  it('should be the same for the same request with keys in another order', () => {
    expect(requestFingerprint(request({ body: { name: 'Rex', status: 'sold' } }))).toBe(
      requestFingerprint(request({ body: { status: 'sold', name: 'Rex' } })),
    );
  });

  it('should tell apart bodies, paths and uploaded bytes', () => {
    const file = (bytes: string) =>
      ({
        fieldname: 'image',
        originalname: 'a.png',
        mimetype: 'image/png',
        buffer: Buffer.from(bytes),
      }) as Express.Multer.File;
    const prints = [
      request({ body: { name: 'Rex' } }),
      request({ body: { name: 'Max' } }),
      request({ body: { name: 'Rex' }, originalUrl: '/v1/categories' }),
      request({ originalUrl: '/v1/pets/1/upload-image', file: file('one') }),
      request({ originalUrl: '/v1/pets/1/upload-image', file: file('two') }),
      request({ originalUrl: '/v1/pets/2/upload-image', file: file('one') }),
    ].map(requestFingerprint);

    expect(new Set(prints).size).toBe(prints.length);
    expect(prints[0]).toMatch(/^[0-9a-f]{64}$/);
  });
});
