import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Res } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { AnyRole, Roles } from '../common/decorators/roles.decorator.js';
import { RequiredScope } from '../common/decorators/required-scope.decorator.js';
import {
  IfMatchHeader,
  rowEtag,
  setEtag,
  type IfMatch,
} from '../common/http/conditional-requests.js';
import { ApiErrors } from '../openapi/api-errors.decorator.js';
import {
  ApiAuth,
  ApiConditionalRead,
  ApiConditionalWrite,
  ApiIdParam,
  ApiJsonBody,
  ETAG_RESPONSE_HEADERS,
} from '../openapi/api-docs.decorators.js';
import { EmptyResponse } from '../openapi/empty-response.dto.js';
import { NonEmptyBodyPipe } from '../common/pipes/non-empty-body.pipe.js';
import { ParseIdPipe } from '../common/pipes/parse-id.pipe.js';
import { Idempotent } from '../idempotency/idempotent.decorator.js';
import { CategoriesService, categoryNotFound } from './categories.service.js';
import { toCategoryResponse } from './category.mapper.js';
import { CategoryListResponse, CategoryResponse } from './dto/category-response.dto.js';
import { CreateCategoryDto } from './dto/create-category.dto.js';
import { UpdateCategoryDto } from './dto/update-category.dto.js';

@ApiTags('categories')
@ApiAuth()
@Controller('categories')
export class CategoriesController {
  constructor(private readonly categoriesService: CategoriesService) {}

  @Get()
  @RequiredScope('categories:read')
  @AnyRole()
  @ApiOperation({
    operationId: 'listCategories',
    summary: 'List categories',
    description: 'Every category, ordered by name. Any authenticated caller.',
  })
  @ApiOkResponse({ type: CategoryListResponse, description: 'The categories' })
  async findAll(): Promise<CategoryListResponse> {
    const categories = await this.categoriesService.findAll();
    return { categories: categories.map(toCategoryResponse) };
  }

  @Post()
  @RequiredScope('categories:write')
  @Roles('admin')
  @Idempotent()
  @ApiOperation({
    operationId: 'createCategory',
    summary: 'Create a category',
    description: 'Admin only. Names are unique regardless of case (409 CONFLICT).',
  })
  @ApiJsonBody()
  @ApiErrors({ 409: ['CONFLICT'] })
  @ApiCreatedResponse({ type: CategoryResponse, description: 'The new category' })
  async create(@Body() dto: CreateCategoryDto): Promise<CategoryResponse> {
    return toCategoryResponse(await this.categoriesService.create(dto));
  }

  @Get(':id')
  @RequiredScope('categories:read')
  @AnyRole()
  @ApiOperation({
    operationId: 'getCategory',
    summary: 'Get a category',
    description: 'Any authenticated caller.',
  })
  @ApiIdParam('id', 'Category id')
  @ApiConditionalRead()
  @ApiErrors({ 404: ['CATEGORY_NOT_FOUND'] })
  @ApiOkResponse({
    type: CategoryResponse,
    description: 'The category',
    headers: ETAG_RESPONSE_HEADERS,
  })
  async findOne(
    @Param('id', new ParseIdPipe(categoryNotFound)) id: number,
    @Res({ passthrough: true }) res: Response,
  ): Promise<CategoryResponse> {
    const category = await this.categoriesService.findOne(id);
    setEtag(res, rowEtag(category));
    return toCategoryResponse(category);
  }

  @Put(':id')
  @RequiredScope('categories:write')
  @Roles('admin')
  @ApiOperation({
    operationId: 'updateCategory',
    summary: 'Update a category',
    description: 'Admin only. Any non-empty subset of the fields.',
  })
  @ApiIdParam('id', 'Category id')
  @ApiJsonBody()
  @ApiConditionalWrite()
  @ApiErrors({ 404: ['CATEGORY_NOT_FOUND'], 409: ['CONFLICT'] })
  @ApiOkResponse({
    type: CategoryResponse,
    description: 'The updated category',
    headers: ETAG_RESPONSE_HEADERS,
  })
  async update(
    @Param('id', new ParseIdPipe(categoryNotFound)) id: number,
    @Body(NonEmptyBodyPipe) dto: UpdateCategoryDto,
    @IfMatchHeader() ifMatch: IfMatch | undefined,
    @Res({ passthrough: true }) res: Response,
  ): Promise<CategoryResponse> {
    const category = await this.categoriesService.update(id, dto, ifMatch);
    setEtag(res, rowEtag(category));
    return toCategoryResponse(category);
  }

  @Delete(':id')
  @RequiredScope('categories:write')
  @Roles('admin')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'deleteCategory',
    summary: 'Delete a category',
    description: 'Admin only. A category that pets still use cannot be deleted (409).',
  })
  @ApiIdParam('id', 'Category id')
  @ApiConditionalWrite()
  @ApiErrors({ 404: ['CATEGORY_NOT_FOUND'], 409: ['CATEGORY_IN_USE'] })
  @ApiOkResponse({ type: EmptyResponse, description: 'Deleted; the body is `{}`' })
  async remove(
    @Param('id', new ParseIdPipe(categoryNotFound)) id: number,
    @IfMatchHeader() ifMatch: IfMatch | undefined,
  ): Promise<EmptyResponse> {
    await this.categoriesService.remove(id, ifMatch);
    return {};
  }
}
