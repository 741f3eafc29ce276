import { CallHandler, ExecutionContext, NestInterceptor } from '@nestjs/common';
import type { Request, RequestHandler, Response } from 'express';
import multer from 'multer';
import type { Observable } from 'rxjs';
import { ApiException } from '../../common/errors/api-exception.js';
import type { UploadBudget } from '../processing/upload-budget.js';

export interface MultipartLimits {
  /** The one file part's field name. */
  field: string;
  maxFileBytes: number;
  /** The file plus room for the boundaries, part headers and the text fields. */
  maxBodyBytes: number;
  /** What the file is, for the 413's message ("Images"). */
  what: string;
}

/**
 * Parses a multipart form with hard limits, into memory (at most one file), and turns every
 * multer and busboy failure into the error of docs/media.md here, where it is raised. With a
 * budget, the body's bytes are reserved in it first (or refused with 503 at once).
 */
export abstract class MultipartUploadInterceptor implements NestInterceptor {
  private readonly parse: RequestHandler;

  protected constructor(
    private readonly limits: MultipartLimits,
    private readonly budget?: UploadBudget,
  ) {
    this.parse = multer({
      storage: multer.memoryStorage(),
      limits: {
        fileSize: limits.maxFileBytes,
        files: 1,
        fields: 4,
        parts: 6,
        fieldNameSize: 100,
        // Above the 500-character limit in UTF-8, so that validation names the field.
        fieldSize: 4 * 1024,
        headerPairs: 20,
      },
    }).single(limits.field);
  }

  async intercept(context: ExecutionContext, next: CallHandler): Promise<Observable<unknown>> {
    const http = context.switchToHttp();
    const request = http.getRequest<Request>();
    const { maxBodyBytes } = this.limits;
    const declared = Number(request.get('content-length'));
    // A body announced far beyond the limit is refused before a byte of it is read.
    if (declared > maxBodyBytes) {
      throw this.tooLarge();
    }
    if (this.budget) {
      // Node reads exactly Content-Length bytes of a body, so that is what it can hold; a
      // body without one (chunked) may hold the most multer lets through.
      const release = this.budget.tryReserve(declared > 0 ? declared : maxBodyBytes);
      if (!release) throw this.busy();
      // Held while the handler works on the buffer, until the answer is sent or abandoned.
      http.getResponse<Response>().once('close', release);
    }
    await new Promise<void>((resolve, reject) => {
      // multer reads a refused body to its end before it reports the refusal: a chunked
      // body that never ends is answered here instead, once it holds more than any upload
      // may, and what follows is discarded within bounds (common/http/early-answers.ts).
      let received = 0;
      const count = (chunk: Buffer) => {
        received += chunk.length;
        if (received <= maxBodyBytes) return;
        request.off('data', count);
        reject(this.tooLarge());
      };
      this.parse(request, http.getResponse<Response>(), (error?: unknown) => {
        request.off('data', count);
        if (error === undefined) resolve();
        else reject(this.toApiException(error));
      });
      // Only while multer reads the body (it pipes a multipart one at once).
      if (request.readableFlowing) request.on('data', count);
    });
    return next.handle();
  }

  private busy(): ApiException {
    return ApiException.retryLater(
      'SERVICE_UNAVAILABLE',
      'Too many uploads are in progress; retry shortly',
      1,
      undefined,
      // Refused before the body is read: the connection is closed rather than drained.
      { Connection: 'close' },
    );
  }

  private tooLarge(): ApiException {
    const { what, maxFileBytes } = this.limits;
    return new ApiException(
      'PAYLOAD_TOO_LARGE',
      `${what} are limited to ${maxFileBytes} bytes (${maxFileBytes / 2 ** 20} MB)`,
      { maxBytes: maxFileBytes },
      // Nothing more is kept of the body: what still arrives is discarded (within bounds,
      // common/http/early-answers.ts), then the connection closes.
      { Connection: 'close' },
    );
  }

  private toApiException(error: unknown): ApiException {
    if (!(error instanceof multer.MulterError)) {
      // busboy's parse errors: a missing boundary, a cut-off body, a malformed part header.
      return ApiException.validation([{ field: 'body', message: 'malformed multipart body' }]);
    }
    const field = error.field ?? 'body';
    const fileField = this.limits.field;
    switch (error.code) {
      case 'LIMIT_FILE_SIZE':
        return this.tooLarge();
      case 'LIMIT_FILE_COUNT':
      case 'LIMIT_UNEXPECTED_FILE':
        // busboy's file-count limit names no field: the only file field there is.
        return ApiException.validation([
          {
            field: error.field ?? fileField,
            message: `only one file is accepted, in the ${fileField} field`,
          },
        ]);
      case 'LIMIT_FIELD_VALUE':
        return ApiException.validation([{ field, message: `${field} is too long` }]);
      case 'LIMIT_PART_COUNT':
      case 'LIMIT_FIELD_COUNT':
        return ApiException.validation([{ field: 'body', message: 'too many form fields' }]);
      case 'LIMIT_FIELD_KEY':
      case 'MISSING_FIELD_NAME':
        return ApiException.validation([{ field: 'body', message: 'malformed form field name' }]);
      default:
        return ApiException.validation([{ field, message: error.message }]);
    }
  }
}
