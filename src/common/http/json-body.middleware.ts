import { HttpStatus, Injectable, NestMiddleware } from '@nestjs/common';
import express, { type NextFunction, type Request, type Response } from 'express';
import { ApiException } from '../errors/api-exception.js';

export const JSON_BODY_LIMIT = '100kb';

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
    return new ApiException('PAYLOAD_TOO_LARGE', `JSON bodies are limited to ${JSON_BODY_LIMIT}`);
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
