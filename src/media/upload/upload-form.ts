import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';

export interface UploadForm {
  fields: Record<string, unknown>;
  file?: Express.Multer.File;
}

/** The parsed multipart form (text fields and the `image` file) as one value for one pipe. */
export const UploadedForm = createParamDecorator((_: unknown, ctx: ExecutionContext) => {
  const request = ctx.switchToHttp().getRequest<Request>();
  return {
    fields: (request.body ?? {}) as Record<string, unknown>,
    file: request.file,
  } satisfies UploadForm;
});

/**
 * The request's own origin, or `undefined` when its Host header is not a plain host[:port]
 * (it ends up in stored URLs, so nothing else is trusted from it).
 */
export const RequestOrigin = createParamDecorator((_: unknown, ctx: ExecutionContext) => {
  const request = ctx.switchToHttp().getRequest<Request>();
  const host = request.get('host') ?? '';
  return /^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/.test(host)
    ? `${request.protocol}://${host}`
    : undefined;
});
