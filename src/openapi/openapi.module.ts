import { Module } from '@nestjs/common';
import { DocsController } from './docs.controller.js';
import { PublishedOpenApi } from './published-openapi.js';
import { OpenApiController } from './openapi.controller.js';

@Module({
  controllers: [OpenApiController, DocsController],
  providers: [PublishedOpenApi],
})
export class OpenApiModule {}
