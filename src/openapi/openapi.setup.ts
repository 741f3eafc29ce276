import type { INestApplication } from '@nestjs/common';
import { createOpenApiDocument } from './openapi-builder.js';
import { PublishedOpenApi } from './published-openapi.js';

/** Builds the description once, from the configured app (after its global prefix is set). */
export function publishOpenApiDocument(app: INestApplication): void {
  app.get(PublishedOpenApi).publish(createOpenApiDocument(app));
}
