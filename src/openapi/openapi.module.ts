import { Module } from '@nestjs/common';
import { DocsController } from './docs.controller.js';
import { OpenApiDocument } from './openapi-document.js';
import { OpenApiController } from './openapi.controller.js';

@Module({
  controllers: [OpenApiController, DocsController],
  providers: [OpenApiDocument],
  exports: [OpenApiDocument],
})
export class OpenApiModule {}
