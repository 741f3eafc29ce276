import { Controller, Get, Header } from '@nestjs/common';
import { ApiExcludeController, type OpenAPIObject } from '@nestjs/swagger';
import { Public } from '../common/decorators/public.decorator.js';
import { PublishedOpenApi } from './published-openapi.js';

/**
 * The API description itself, under /v1 like the API it describes: public, and counted
 * against the caller's address like any anonymous request. Left out of the description.
 */
@ApiExcludeController()
@Public()
@Controller()
export class OpenApiController {
  constructor(private readonly document: PublishedOpenApi) {}

  @Get('openapi.json')
  json(): OpenAPIObject {
    return this.document.json;
  }

  @Get('openapi.yaml')
  @Header('Content-Type', 'application/yaml; charset=utf-8')
  yaml(): string {
    return this.document.yaml;
  }
}
