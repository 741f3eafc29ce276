import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import type { Pagination } from '../common/dto/pagination-query.dto.js';
import { NonEmptyBodyPipe } from '../common/pipes/non-empty-body.pipe.js';
import { ParseIdPipe } from '../common/pipes/parse-id.pipe.js';
import { CreatePetDto } from './dto/create-pet.dto.js';
import { ListPetsQueryDto } from './dto/list-pets-query.dto.js';
import { UpdatePetDto } from './dto/update-pet.dto.js';
import { toPetResponse, type PetResponse } from './pet.mapper.js';
import { PetsService } from './pets.service.js';

@Controller('pets')
export class PetsController {
  constructor(private readonly petsService: PetsService) {}

  @Get()
  async list(
    @Query() query: ListPetsQueryDto,
  ): Promise<{ pets: PetResponse[]; pagination: Pagination }> {
    const page = await this.petsService.list(query);
    return { pets: page.pets.map(toPetResponse), pagination: page.pagination };
  }

  @Post()
  async create(@Body() dto: CreatePetDto): Promise<PetResponse> {
    return toPetResponse(await this.petsService.create(dto));
  }

  @Get(':petId')
  async findOne(@Param('petId', ParseIdPipe) petId: string): Promise<PetResponse> {
    return toPetResponse(await this.petsService.findOne(petId));
  }

  @Put(':petId')
  async update(
    @Param('petId', ParseIdPipe) petId: string,
    @Body(NonEmptyBodyPipe) dto: UpdatePetDto,
  ): Promise<PetResponse> {
    return toPetResponse(await this.petsService.update(petId, dto));
  }

  @Delete(':petId')
  @HttpCode(200)
  async remove(@Param('petId', ParseIdPipe) petId: string): Promise<Record<string, never>> {
    await this.petsService.remove(petId);
    return {};
  }
}
