import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Logger,
  Param,
  Post,
  Put,
  Query,
  Res,
} from '@nestjs/common';
import {
  ApiCreatedResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
  getSchemaPath,
} from '@nestjs/swagger';
import type { Response } from 'express';
import { CurrentPrincipal } from '../common/decorators/current-principal.decorator.js';
import { AnyRole } from '../common/decorators/roles.decorator.js';
import { RequiredScope } from '../common/decorators/required-scope.decorator.js';
import { IfMatchHeader, setEtag, type IfMatch } from '../common/http/conditional-requests.js';
import { CONTENT_DISPOSITION_HEADER } from '../common/http/header-names.js';
import { streamResponse } from '../common/http/stream-response.js';
import { messageOf } from '../common/errors/message-of.js';
import { ApiErrors } from '../openapi/api-errors.decorator.js';
import {
  ApiAuth,
  ApiConditionalRead,
  ApiConditionalWrite,
  ApiIdParam,
  ApiJsonBody,
  ApiValidatedQuery,
  ETAG_RESPONSE_HEADERS,
} from '../openapi/api-docs.decorators.js';
import { EmptyResponse } from '../openapi/empty-response.dto.js';
import { NonEmptyBodyPipe } from '../common/pipes/non-empty-body.pipe.js';
import { ParseIdPipe } from '../common/pipes/parse-id.pipe.js';
import type { Principal } from '../common/types/principal.js';
import { Idempotent } from '../idempotency/idempotent.decorator.js';
import { CreatePetDto } from './dto/create-pet.dto.js';
import { ExportPetsQueryDto } from './dto/export-pets-query.dto.js';
import { InventoryResponse } from './dto/inventory-response.dto.js';
import { ListPetsQueryDto } from './dto/list-pets-query.dto.js';
import { PetFacetsResponse } from './dto/pet-facets-response.dto.js';
import { PetFiltersQueryDto } from './dto/pet-filters-query.dto.js';
import { PetHistoryQueryDto, PetHistoryResponse } from './dto/pet-history.dto.js';
import { PetListResponse, PetResponse } from './dto/pet-response.dto.js';
import { UpdatePetDto } from './dto/update-pet.dto.js';
import { actorOf } from './pet-actor.js';
import { PetHistoryService } from './pet-history.service.js';
import { PetHoldsService } from './pet-holds.service.js';
import {
  petEtag,
  petIfMatch,
  toPetAdoption,
  toPetHistoryEvent,
  toPetResponse,
} from './pet.mapper.js';
import { petNotFound } from './pet-not-found.js';
import { exportChunks, PET_CSV_COLUMNS, PET_EXPORT_CONTENT_TYPES } from './pet-export.js';
import { PetsService } from './pets.service.js';

@ApiTags('pets')
@ApiAuth()
@Controller('pets')
export class PetsController {
  private readonly logger = new Logger('Pets');

  constructor(
    private readonly petsService: PetsService,
    private readonly petHistory: PetHistoryService,
    private readonly petHolds: PetHoldsService,
  ) {}

  @Get()
  @RequiredScope('pets:read')
  @AnyRole()
  @ApiOperation({
    operationId: 'listPets',
    summary: 'List pets',
    description:
      'Filtered by category, status, a search (`q`), tags, breed, age and creation time; ' +
      'sorted by `sort` (newest first by default, by relevance with `q`), ties by id ' +
      'descending. `pagination.total` is exact. Page with limit/offset, or with `cursor` = ' +
      'the previous page’s `pagination.nextCursor` (same filters and sort, no offset).',
  })
  @ApiValidatedQuery()
  @ApiOkResponse({ type: PetListResponse, description: 'One page of pets' })
  async list(@Query() query: ListPetsQueryDto): Promise<PetListResponse> {
    const page = await this.petsService.list(query);
    return { pets: page.pets.map(toPetResponse), pagination: page.pagination };
  }

  @Post()
  @RequiredScope('pets:write')
  @Idempotent()
  @ApiOperation({
    operationId: 'createPet',
    summary: 'Create a pet',
    description: 'name, categoryId and status are required; tags are created on first use.',
  })
  @ApiJsonBody()
  @ApiErrors({ 409: ['EXTERNAL_ID_TAKEN'] })
  @ApiCreatedResponse({ type: PetResponse, description: 'The new pet' })
  async create(
    @Body() dto: CreatePetDto,
    @CurrentPrincipal() principal: Principal,
  ): Promise<PetResponse> {
    return toPetResponse(await this.petsService.create(dto, actorOf(principal)));
  }

  // Before ':petId', which would take "facets" for an id.
  @Get('facets')
  @RequiredScope('pets:read')
  @AnyRole()
  @ApiOperation({
    operationId: 'getPetFacets',
    summary: 'Count the pets a search matches',
    description:
      'The filters of GET /pets (no paging, no sort): the matching pets overall, by ' +
      'status, by category (those with matches, most first, then by name) and the 20 most ' +
      'frequent tags (then by name).',
  })
  @ApiValidatedQuery()
  @ApiOkResponse({ type: PetFacetsResponse, description: 'Counts of the matching pets' })
  facets(@Query() query: PetFiltersQueryDto): Promise<PetFacetsResponse> {
    return this.petsService.facets(query);
  }

  // Before ':petId', which would take "inventory" for an id.
  @Get('inventory')
  @RequiredScope('pets:read')
  @AnyRole()
  @ApiOperation({
    operationId: 'getPetInventory',
    summary: 'Count pets by status',
    description:
      'Overall and per category (every category, by name), exact, from counters kept with ' +
      'every write: the cost grows with the number of categories, not of pets.',
  })
  @ApiOkResponse({ type: InventoryResponse, description: 'Pets by status' })
  inventory(): Promise<InventoryResponse> {
    return this.petsService.inventory();
  }

  // Before ':petId', which would take "export" for an id. Staff only (the default roles).
  @Get('export')
  @RequiredScope('pets:read')
  @ApiOperation({
    operationId: 'exportPets',
    summary: 'Export the pets as NDJSON or CSV',
    description:
      'Every pet the filters of GET /pets match (no paging, no sort), by id descending, ' +
      'streamed as it is read. `ndjson`: one pet per line, as GET /pets/{petId} shows it ' +
      'but without `adoption`. `csv`: a header row, then a row per pet with the columns ' +
      `${PET_CSV_COLUMNS.join(', ')} (tags and photoUrls joined with "|"). An error after ` +
      'the first byte cuts the response short.',
  })
  @ApiValidatedQuery()
  @ApiOkResponse({
    description: 'The pets, as an attachment',
    headers: {
      [CONTENT_DISPOSITION_HEADER]: {
        description: 'attachment; filename="pets-<UTC date>.<ndjson|csv>"',
        required: true,
        schema: {
          type: 'string',
          maxLength: 64,
          pattern: '^attachment; filename="pets-\\d{4}-\\d{2}-\\d{2}\\.(ndjson|csv)"$',
        },
      },
    },
    content: {
      'application/x-ndjson': { schema: { $ref: getSchemaPath(PetResponse) } },
      // A file, as media's images: no schema a validator could check.
      'text/csv': {},
    },
  })
  async export(@Query() query: ExportPetsQueryDto, @Res() res: Response): Promise<void> {
    const { format } = query;
    const date = new Date().toISOString().slice(0, 10);
    await streamResponse(
      res,
      {
        'Content-Type': PET_EXPORT_CONTENT_TYPES[format],
        [CONTENT_DISPOSITION_HEADER]: `attachment; filename="pets-${date}.${format}"`,
      },
      exportChunks(this.petsService.export(query), format),
      (error) => this.logger.warn(`Pet export cut short: ${messageOf(error)}`),
    );
  }

  @Get(':petId')
  @RequiredScope('pets:read')
  @AnyRole()
  @ApiOperation({
    operationId: 'getPet',
    summary: 'Get a pet',
    description: 'One pet by id, with its open adoption (`adoption`) while it has one.',
  })
  @ApiIdParam('petId', 'Pet id')
  @ApiConditionalRead()
  @ApiErrors({ 404: ['PET_NOT_FOUND'] })
  @ApiOkResponse({ type: PetResponse, description: 'The pet', headers: ETAG_RESPONSE_HEADERS })
  async findOne(
    @Param('petId', new ParseIdPipe(petNotFound)) petId: number,
    @Res({ passthrough: true }) res: Response,
  ): Promise<PetResponse> {
    const pet = await this.petsService.findOne(petId);
    // Only a pet moved to pending by an adoption can be held (nothing else moves it while
    // the adoption is open): the others cost no second statement.
    const hold = pet.heldBy ? await this.petHolds.of(petId) : undefined;
    setEtag(res, petEtag(pet, hold));
    return { ...toPetResponse(pet), adoption: hold && toPetAdoption(hold) };
  }

  @Put(':petId')
  @RequiredScope('pets:write')
  @ApiOperation({
    operationId: 'updatePet',
    summary: 'Update a pet',
    description:
      'Any non-empty subset of the write fields. Status moves: available → pending, ' +
      'pending → sold, pending → available, sold → available, and any status to itself; ' +
      'anything else is 409 INVALID_STATUS_TRANSITION with details {from, to, allowed}. ' +
      'A pet with an open adoption moves only through it: a status here is 409 ' +
      'PET_HAS_OPEN_ADOPTION.',
  })
  @ApiIdParam('petId', 'Pet id')
  @ApiJsonBody()
  @ApiConditionalWrite()
  @ApiErrors({
    404: ['PET_NOT_FOUND'],
    409: ['INVALID_STATUS_TRANSITION', 'PET_HAS_OPEN_ADOPTION', 'EXTERNAL_ID_TAKEN'],
  })
  @ApiOkResponse({
    type: PetResponse,
    description: 'The updated pet',
    headers: ETAG_RESPONSE_HEADERS,
  })
  async update(
    @Param('petId', new ParseIdPipe(petNotFound)) petId: number,
    @Body(NonEmptyBodyPipe) dto: UpdatePetDto,
    @IfMatchHeader() ifMatch: IfMatch | undefined,
    @CurrentPrincipal() principal: Principal,
    @Res({ passthrough: true }) res: Response,
  ): Promise<PetResponse> {
    const pet = await this.petsService.update(petId, dto, actorOf(principal), petIfMatch(ifMatch));
    setEtag(res, petEtag(pet));
    return toPetResponse(pet);
  }

  @Delete(':petId')
  @RequiredScope('pets:write')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'deletePet',
    summary: 'Delete a pet',
    description:
      'Removes the pet and its stored images, and its closed adoptions. A pet with an open ' +
      'adoption is 409 PET_HAS_OPEN_ADOPTION.',
  })
  @ApiIdParam('petId', 'Pet id')
  @ApiConditionalWrite()
  @ApiErrors({ 404: ['PET_NOT_FOUND'], 409: ['PET_HAS_OPEN_ADOPTION'] })
  @ApiOkResponse({ type: EmptyResponse, description: 'Deleted; the body is `{}`' })
  async remove(
    @Param('petId', new ParseIdPipe(petNotFound)) petId: number,
    @IfMatchHeader() ifMatch: IfMatch | undefined,
    @CurrentPrincipal() principal: Principal,
  ): Promise<EmptyResponse> {
    await this.petsService.remove(petId, actorOf(principal), petIfMatch(ifMatch));
    return {};
  }

  @Get(':petId/history')
  @RequiredScope('pets:read')
  @AnyRole()
  @ApiOperation({
    operationId: 'getPetHistory',
    summary: 'List a pet’s changes',
    description:
      'Every change of the pet, newest first, with who made it and when: pet.created, ' +
      'pet.updated (changedFields: the request fields whose value changed), ' +
      'pet.status_changed (from, to), pet.image_added, pet.deleted. A PUT that changes ' +
      'fields and the status records both, pet.updated first; one that changes nothing ' +
      'records nothing. A deleted pet’s history is readable by admins only (404 for anyone ' +
      'else). Paged like GET /pets: limit/offset, or `cursor` = the previous page’s ' +
      '`pagination.nextCursor` (without offset).',
  })
  @ApiIdParam('petId', 'Pet id')
  @ApiValidatedQuery()
  @ApiErrors({ 404: ['PET_NOT_FOUND'] })
  @ApiOkResponse({ type: PetHistoryResponse, description: 'One page of the pet’s changes' })
  async history(
    @Param('petId', new ParseIdPipe(petNotFound)) petId: number,
    @Query() query: PetHistoryQueryDto,
    @CurrentPrincipal() principal: Principal,
  ): Promise<PetHistoryResponse> {
    const page = await this.petHistory.list(petId, query, principal);
    return {
      events: page.events.map((event) => toPetHistoryEvent(event, principal.role)),
      pagination: page.pagination,
    };
  }
}
