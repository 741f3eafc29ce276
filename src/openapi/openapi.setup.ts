import type { INestApplication } from '@nestjs/common';
import { createOpenApiDocument } from './openapi.document.js';
import { OpenApiDocument } from './openapi-document.js';

/** Builds the description once, from the configured app (after its global prefix is set). */
export function publishOpenApiDocument(app: INestApplication): void {
  app.get(OpenApiDocument).publish(createOpenApiDocument(app));
}
