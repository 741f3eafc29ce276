import { Controller, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiBody,
  ApiConsumes,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { Consumes } from '../common/decorators/consumes.decorator.js';
import { CurrentPrincipal } from '../common/decorators/current-principal.decorator.js';
import { RequiredScope } from '../common/decorators/required-scope.decorator.js';
import { API_PREFIX } from '../common/http/route-space.js';
import { ParseIdPipe } from '../common/pipes/parse-id.pipe.js';
import type { Principal } from '../common/types/principal.js';
import { Idempotent } from '../idempotency/idempotent.decorator.js';
import { ImportFileForm, UploadedForm } from '../media/upload/import-file.decorator.js';
import { ApiErrors } from '../openapi/api-errors.decorator.js';
import { ApiAuth, ApiIdParam } from '../openapi/api-docs.decorators.js';
import { EmptyResponse } from '../openapi/empty-response.dto.js';
import { actorOf } from '../pets/pet-actor.js';
import { PET_IMPORT_FORM_SCHEMA } from './dto/pet-import-form.dto.js';
import { PetImportAcceptedResponse, PetImportResponse } from './dto/pet-import-response.dto.js';
import { PetImportFormPipe, type PetImportRequest } from './pet-import-form.pipe.js';
import { toPetImportResponse } from './pet-import.mapper.js';
import { petImportNotFound, PetImportsService } from './pet-imports.service.js';

/** Catalogue imports (docs/pet-imports.md), for staff. */
@ApiTags('pets')
@ApiAuth()
@Controller('pets/imports')
export class PetImportsController {
  constructor(private readonly imports: PetImportsService) {}

  @Post()
  @RequiredScope('pets:write')
  @HttpCode(202)
  @Consumes('multipart/form-data')
  // Above the form's interceptor, so that it runs inside it and fingerprints the form.
  @Idempotent()
  @ImportFileForm()
  @ApiOperation({
    operationId: 'importPets',
    summary: 'Import pets from a file',
    description:
      'Queues the import of a CSV or NDJSON file and answers at once; follow it at ' +
      '`statusUrl`. Every row is validated as a single create (the same messages), then the ' +
      'valid rows are applied in batches; a row error never stops the rest. `mode=upsert` ' +
      'matches pets by externalId; `dryRun=true` changes nothing and reports what the import ' +
      'would.',
  })
  @ApiConsumes('multipart/form-data')
  @ApiBody({ schema: PET_IMPORT_FORM_SCHEMA })
  @ApiErrors({
    400: ['VALIDATION_ERROR'],
    413: ['PAYLOAD_TOO_LARGE'],
    415: ['UNSUPPORTED_MEDIA_TYPE'],
  })
  @ApiAcceptedResponse({ type: PetImportAcceptedResponse, description: 'Queued' })
  async start(
    @UploadedForm(PetImportFormPipe) request: PetImportRequest,
    @CurrentPrincipal() principal: Principal,
  ): Promise<PetImportAcceptedResponse> {
    const { file, format, ...options } = request;
    const started = await this.imports.start(file, format, options, actorOf(principal));
    const id = Number(started.id);
    return { id, status: started.status, statusUrl: `/${API_PREFIX}/pets/imports/${id}` };
  }

  @Get(':importId')
  @RequiredScope('pets:read')
  @ApiOperation({
    operationId: 'getPetImport',
    summary: 'Follow an import',
    description: 'Its status, counts, progress and first 1,000 errors, while it runs and after.',
  })
  @ApiIdParam('importId', 'Import id')
  @ApiErrors({ 404: ['PET_IMPORT_NOT_FOUND'] })
  @ApiOkResponse({ type: PetImportResponse, description: 'The import' })
  async findOne(
    @Param('importId', new ParseIdPipe(petImportNotFound)) importId: number,
  ): Promise<PetImportResponse> {
    return toPetImportResponse(await this.imports.findOne(importId));
  }

  @Delete(':importId')
  @RequiredScope('pets:write')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'cancelPetImport',
    summary: 'Cancel an import',
    description:
      'Stops an unfinished import after the batch being applied (its rows stay); no later ' +
      'row is applied. A finished one is 409 PET_IMPORT_FINISHED.',
  })
  @ApiIdParam('importId', 'Import id')
  @ApiErrors({ 404: ['PET_IMPORT_NOT_FOUND'], 409: ['PET_IMPORT_FINISHED'] })
  @ApiOkResponse({ type: EmptyResponse, description: 'Cancelled; the body is `{}`' })
  async cancel(
    @Param('importId', new ParseIdPipe(petImportNotFound)) importId: number,
  ): Promise<EmptyResponse> {
    await this.imports.cancel(importId);
    return {};
  }
}
