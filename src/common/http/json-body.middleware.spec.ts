import { Readable } from 'node:stream';
import { describe, expect, it } from '@jest/globals';
import type { Request, Response } from 'express';
import { ApiException } from '../errors/api-exception.js';
import { bodyParserError, JsonBodyMiddleware } from './json-body.middleware.js';

/**
 * A request stream as body-parser sees it. Node's HTTP parser always delivers exactly
 * Content-Length bytes, so a mismatch can only come from a stream fed another way; the
 * middleware must still answer it as the client's error.
 */
function jsonRequest(body: string, contentLength: number, setUp?: (req: Readable) => void) {
  const req = Object.assign(Readable.from([Buffer.from(body)]), {
    method: 'POST',
    url: '/v1/categories',
    headers: { 'content-type': 'application/json', 'content-length': String(contentLength) },
  });
  setUp?.(req);
  return req as unknown as Request;
}

/** What the middleware recorded for ContentTypeGuard to throw; it always lets the request on. */
function parse(req: Request): Promise<unknown> {
  return new Promise((resolve, reject) => {
    new JsonBodyMiddleware().use(req, {} as Response, (error?: unknown) =>
      error === undefined
        ? resolve(req.bodyError)
        : reject(new Error('the request was not let on')),
    );
  });
}

const answer = (error: unknown) => {
  expect(error).toBeInstanceOf(ApiException);
  const api = error as ApiException;
  return { status: api.getStatus(), code: api.code };
};

describe(JsonBodyMiddleware.name, () => {
  it('should answer a body shorter than its Content-Length (request.size.invalid) with 400 INVALID_JSON', async () => {
    const error = await parse(jsonRequest('{"name":"x"}', 20));
    expect(answer(error)).toEqual({ status: 400, code: 'INVALID_JSON' });
  });

  it('should answer a request stream that was set to decode text (stream.encoding.set) with 400, not 500', async () => {
    const error = await parse(jsonRequest('{"name":"x"}', 12, (req) => req.setEncoding('utf8')));
    expect(answer(error)).toEqual({ status: 400, code: 'INVALID_JSON' });
  });

  it('should parse a well-formed body', async () => {
    const req = jsonRequest('{"name":"x"}', 12);
    expect(await parse(req)).toBeUndefined();
    expect(req.body).toEqual({ name: 'x' });
  });
});

describe(bodyParserError.name, () => {
  it.each([
    ['request.aborted', 400, 400, 'INVALID_JSON'],
    ['request.size.invalid', 400, 400, 'INVALID_JSON'],
    ['parameters.too.many', 413, 413, 'PAYLOAD_TOO_LARGE'],
    ['entity.verify.failed', 403, 400, 'INVALID_JSON'],
    ['stream.not.readable', 500, 400, 'INVALID_JSON'],
    ['charset.unsupported', 415, 415, 'UNSUPPORTED_MEDIA_TYPE'],
    ['encoding.unsupported', 415, 415, 'UNSUPPORTED_MEDIA_TYPE'],
    [undefined, 400, 400, 'INVALID_JSON'],
  ])('should answer %s (status %d) with %d %s', (type, status, expected, code) => {
    // The shape of body-parser's errors (http-errors).
    const error = Object.assign(new Error('failed'), { type, status, statusCode: status });
    expect(answer(bodyParserError(error))).toEqual({
      status: expected,
      code,
    });
  });
});
