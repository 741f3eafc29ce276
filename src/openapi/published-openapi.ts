import { Injectable, type INestApplication } from '@nestjs/common';
import type { OpenAPIObject } from '@nestjs/swagger';
import { dump } from 'js-yaml';
import { createOpenApiDocument } from './openapi-builder.js';

/** The API description, built once at start-up (configureApp) and served as is. */
@Injectable()
export class PublishedOpenApi {
  private published?: { json: OpenAPIObject; yaml: string };

  publish(document: OpenAPIObject): void {
    this.published = { json: document, yaml: dump(document, { noRefs: true }) };
  }

  get json(): OpenAPIObject {
    return this.get().json;
  }

  get yaml(): string {
    return this.get().yaml;
  }

  private get(): { json: OpenAPIObject; yaml: string } {
    if (!this.published) throw new Error('The OpenAPI document is published by configureApp()');
    return this.published;
  }
}

/** Builds the description once, from the configured app (after its global prefix is set). */
export function publishOpenApiDocument(app: INestApplication): void {
  app.get(PublishedOpenApi).publish(createOpenApiDocument(app));
}
