import { HttpStatus, Injectable, NestMiddleware } from '@nestjs/common';
import express, { type NextFunction, type Request, type Response } from 'express';
import { ApiException } from '../errors/api-exception.js';

export const JSON_BODY_LIMIT = '100kb';

const parseJson = express.json({ limit: JSON_BODY_LIMIT, type: 'application/json' });

/**
 * Parses JSON bodies and turns body-parser's failures into the contract's errors.
 * Bodies of other types are left unread; the content-type interceptor refuses them
 * on routes that expect JSON.
 */
@Injectable()
export class JsonBodyMiddleware implements NestMiddleware {
  use(req: Request, res: Response, next: NextFunction): void {
    parseJson(req, res, (error?: unknown) => {
      next(error === undefined ? undefined : toApiException(error));
    });
  }
}

function toApiException(error: unknown): unknown {
  switch ((error as { type?: unknown }).type) {
    case 'entity.parse.failed':
      return new ApiException(
        HttpStatus.BAD_REQUEST,
        'INVALID_JSON',
        'The request body is not valid JSON',
      );
    case 'entity.too.large':
      return new ApiException(
        HttpStatus.PAYLOAD_TOO_LARGE,
        'PAYLOAD_TOO_LARGE',
        `JSON bodies are limited to ${JSON_BODY_LIMIT}`,
      );
    case 'charset.unsupported':
    case 'encoding.unsupported':
      return new ApiException(
        HttpStatus.UNSUPPORTED_MEDIA_TYPE,
        'UNSUPPORTED_MEDIA_TYPE',
        'Only UTF-8 JSON bodies are accepted',
      );
    default:
      return error;
  }
}
