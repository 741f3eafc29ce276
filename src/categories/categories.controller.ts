import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put } from '@nestjs/common';
import { Roles } from '../common/decorators/roles.decorator.js';
import { NonEmptyBodyPipe } from '../common/pipes/non-empty-body.pipe.js';
import { ParseIdPipe } from '../common/pipes/parse-id.pipe.js';
import { CategoriesService } from './categories.service.js';
import { toCategoryResponse, type CategoryResponse } from './category.mapper.js';
import { CreateCategoryDto } from './dto/create-category.dto.js';
import { UpdateCategoryDto } from './dto/update-category.dto.js';

@Controller('categories')
export class CategoriesController {
  constructor(private readonly categoriesService: CategoriesService) {}

  @Get()
  async findAll(): Promise<{ categories: CategoryResponse[] }> {
    const categories = await this.categoriesService.findAll();
    return { categories: categories.map(toCategoryResponse) };
  }

  @Post()
  @Roles('admin')
  async create(@Body() dto: CreateCategoryDto): Promise<CategoryResponse> {
    return toCategoryResponse(await this.categoriesService.create(dto));
  }

  @Get(':id')
  async findOne(@Param('id', ParseIdPipe) id: string): Promise<CategoryResponse> {
    return toCategoryResponse(await this.categoriesService.findOne(id));
  }

  @Put(':id')
  @Roles('admin')
  async update(
    @Param('id', ParseIdPipe) id: string,
    @Body(NonEmptyBodyPipe) dto: UpdateCategoryDto,
  ): Promise<CategoryResponse> {
    return toCategoryResponse(await this.categoriesService.update(id, dto));
  }

  @Delete(':id')
  @Roles('admin')
  @HttpCode(200)
  async remove(@Param('id', ParseIdPipe) id: string): Promise<Record<string, never>> {
    await this.categoriesService.remove(id);
    return {};
  }
}
