import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Param,
  Post,
  Put,
  Query,
  Res,
} from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { IfMatchHeader, type IfMatch } from '../common/http/conditional-requests.js';
import { ApiErrors } from '../common/openapi/api-errors.decorator.js';
import {
  ApiAuth,
  ApiConditionalRead,
  ApiConditionalWrite,
  ApiIdParam,
  ApiJsonBody,
  ApiValidatedQuery,
  ETAG_RESPONSE_HEADERS,
} from '../common/openapi/api-docs.decorators.js';
import { EmptyResponse } from '../common/openapi/empty-response.dto.js';
import { NonEmptyBodyPipe } from '../common/pipes/non-empty-body.pipe.js';
import { ParseIdPipe } from '../common/pipes/parse-id.pipe.js';
import { Idempotent } from '../idempotency/idempotent.decorator.js';
import { CreatePetDto } from './dto/create-pet.dto.js';
import { InventoryResponse } from './dto/inventory-response.dto.js';
import { ListPetsQueryDto } from './dto/list-pets-query.dto.js';
import { PetListResponse, PetResponse } from './dto/pet-response.dto.js';
import { UpdatePetDto } from './dto/update-pet.dto.js';
import { petEtag, toPetResponse } from './pet.mapper.js';
import { petNotFound, PetsService } from './pets.service.js';

@ApiTags('pets')
@ApiAuth()
@Controller('pets')
export class PetsController {
  constructor(private readonly petsService: PetsService) {}

  @Get()
  @ApiOperation({
    operationId: 'listPets',
    summary: 'List pets',
    description:
      'Newest first (createdAt, then id, descending). Page with limit/offset, or with ' +
      '`cursor` = the previous page’s `pagination.nextCursor` (same filters, no offset).',
  })
  @ApiValidatedQuery()
  @ApiOkResponse({ type: PetListResponse, description: 'One page of pets' })
  async list(@Query() query: ListPetsQueryDto): Promise<PetListResponse> {
    const page = await this.petsService.list(query);
    return { pets: page.pets.map(toPetResponse), pagination: page.pagination };
  }

  @Post()
  @Idempotent()
  @ApiOperation({
    operationId: 'createPet',
    summary: 'Create a pet',
    description: 'name, categoryId and status are required; tags are created on first use.',
  })
  @ApiJsonBody()
  @ApiCreatedResponse({ type: PetResponse, description: 'The new pet' })
  async create(@Body() dto: CreatePetDto): Promise<PetResponse> {
    return toPetResponse(await this.petsService.create(dto));
  }

  // Before ':petId', which would take "inventory" for an id.
  @Get('inventory')
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

  @Get(':petId')
  @ApiOperation({ operationId: 'getPet', summary: 'Get a pet', description: 'One pet by id.' })
  @ApiIdParam('petId', 'Pet id')
  @ApiConditionalRead()
  @ApiErrors({ 404: ['PET_NOT_FOUND'] })
  @ApiOkResponse({ type: PetResponse, description: 'The pet', headers: ETAG_RESPONSE_HEADERS })
  async findOne(
    @Param('petId', new ParseIdPipe(petNotFound)) petId: number,
    @Res({ passthrough: true }) res: Response,
  ): Promise<PetResponse> {
    const pet = await this.petsService.findOne(petId);
    // Express answers 304 itself when If-None-Match holds this ETag.
    res.setHeader('ETag', petEtag(pet));
    return toPetResponse(pet);
  }

  @Put(':petId')
  @ApiOperation({
    operationId: 'updatePet',
    summary: 'Update a pet',
    description:
      'Any non-empty subset of the write fields. Status moves: available → pending, ' +
      'pending → sold, pending → available, sold → available, and any status to itself; ' +
      'anything else is 409 INVALID_STATUS_TRANSITION with details {from, to, allowed}.',
  })
  @ApiIdParam('petId', 'Pet id')
  @ApiJsonBody()
  @ApiConditionalWrite()
  @ApiErrors({ 404: ['PET_NOT_FOUND'], 409: ['INVALID_STATUS_TRANSITION'] })
  @ApiOkResponse({
    type: PetResponse,
    description: 'The updated pet',
    headers: ETAG_RESPONSE_HEADERS,
  })
  async update(
    @Param('petId', new ParseIdPipe(petNotFound)) petId: number,
    @Body(NonEmptyBodyPipe) dto: UpdatePetDto,
    @IfMatchHeader() ifMatch: IfMatch | undefined,
    @Res({ passthrough: true }) res: Response,
  ): Promise<PetResponse> {
    const pet = await this.petsService.update(petId, dto, ifMatch);
    res.setHeader('ETag', petEtag(pet));
    return toPetResponse(pet);
  }

  @Delete(':petId')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'deletePet',
    summary: 'Delete a pet',
    description: 'Removes the pet and its stored images.',
  })
  @ApiIdParam('petId', 'Pet id')
  @ApiConditionalWrite()
  @ApiErrors({ 404: ['PET_NOT_FOUND'] })
  @ApiOkResponse({ type: EmptyResponse, description: 'Deleted; the body is `{}`' })
  async remove(
    @Param('petId', new ParseIdPipe(petNotFound)) petId: number,
    @IfMatchHeader() ifMatch: IfMatch | undefined,
  ): Promise<EmptyResponse> {
    await this.petsService.remove(petId, ifMatch);
    return {};
  }
}
