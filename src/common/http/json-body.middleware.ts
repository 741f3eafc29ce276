import { HttpStatus, Injectable, NestMiddleware } from '@nestjs/common';
import express, { type NextFunction, type Request, type Response } from 'express';
import { ApiException } from '../errors/api-exception.js';

export const JSON_BODY_LIMIT = '100kb';
const JSON_BODY_LIMIT_BYTES = 100 * 1024;

const parseJson = express.json({ limit: JSON_BODY_LIMIT, type: 'application/json' });

/**
 * Parses JSON bodies and turns body-parser's failures into the errors of docs/input.md, which it
 * records on the request for ContentTypeGuard to throw: a middleware runs before the
 * guards, and an unreadable body is counted against the rate limit like any request.
 * Bodies of other types are left unread; ContentTypeGuard refuses them on routes that
 * expect JSON.
 */
@Injectable()
export class JsonBodyMiddleware implements NestMiddleware {
  use(req: Request, res: Response, next: NextFunction): void {
    // Refused unread, so that a client sending `Expect: 100-continue` gets the 413 before
    // its body: body-parser would first read the body to its end.
    if (
      Number(req.headers['content-length']) > JSON_BODY_LIMIT_BYTES &&
      mediaTypeOf(req) === 'application/json'
    ) {
      // Closed after the answer: what still arrives is discarded within bounds
      // (early-answers.ts), and a body announced beyond them is not read at all.
      req.bodyError = jsonTooLarge({ Connection: 'close' });
      next();
      return;
    }
    parseJson(req, res, (error?: unknown) => {
      if (error !== undefined) req.bodyError = bodyParserError(error);
      next();
    });
  }
}

/**
 * Every failure to read a JSON body is answered as the client's: a 413 or 415 keeps its
 * status, anything else (a body that does not parse or inflate, a body cut short or not of
 * its Content-Length, body-parser's own 500s for a stream it cannot read) is 400
 * INVALID_JSON. Left to Nest, a 4xx would be answered by its status alone (400
 * VALIDATION_ERROR without fields) and a 5xx as an internal error.
 */
export function bodyParserError(error: unknown): ApiException {
  const { type, status } = error as { type?: unknown; status?: unknown };
  if (type === 'entity.too.large' || status === HttpStatus.PAYLOAD_TOO_LARGE) {
    return jsonTooLarge();
  }
  if (status === HttpStatus.UNSUPPORTED_MEDIA_TYPE) {
    return new ApiException(
      'UNSUPPORTED_MEDIA_TYPE',
      type === 'encoding.unsupported'
        ? 'The request body has an unsupported Content-Encoding'
        : 'Only UTF-8 JSON bodies are accepted',
    );
  }
  return new ApiException(
    'INVALID_JSON',
    type === 'entity.parse.failed'
      ? 'The request body is not valid JSON'
      : 'The request body could not be read as JSON',
  );
}

function jsonTooLarge(headers?: Record<string, string>): ApiException {
  return new ApiException(
    'PAYLOAD_TOO_LARGE',
    `JSON bodies are limited to ${JSON_BODY_LIMIT}`,
    undefined,
    headers,
  );
}

function mediaTypeOf(req: Request): string {
  return (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
}
