import { Injectable } from '@nestjs/common';
import { ApiException } from '../common/errors/api-exception.js';
import {
  preconditionFailed,
  rowVersionsIn,
  rowVersionTag,
  type IfMatch,
} from '../common/http/conditional-requests.js';
import {
  CategoriesRepository,
  CategoryInUseError,
  CategoryNameTakenError,
} from './categories.repository.js';
import type { Category } from './category.entity.js';
import type { CreateCategoryDto } from './dto/create-category.dto.js';
import type { UpdateCategoryDto } from './dto/update-category.dto.js';

/** Also ParseIdPipe's answer on the category routes, for ids that cannot exist. */
export const categoryNotFound = (id: number | string) =>
  new ApiException('CATEGORY_NOT_FOUND', `Category ${id} not found`);

@Injectable()
export class CategoriesService {
  constructor(private readonly categories: CategoriesRepository) {}

  findAll(): Promise<Category[]> {
    return this.categories.findAll();
  }

  async findOne(id: number): Promise<Category> {
    const category = await this.categories.findById(id);
    if (!category) throw categoryNotFound(id);
    return category;
  }

  create(dto: CreateCategoryDto): Promise<Category> {
    return refusingTakenName(() =>
      this.categories.insert({ name: dto.name, description: dto.description ?? null }),
    );
  }

  /** With `ifMatch`, only if the category's version is one of it (412 otherwise). */
  async update(id: number, dto: UpdateCategoryDto, ifMatch?: IfMatch): Promise<Category> {
    const updated = await refusingTakenName(() =>
      this.categories.update(id, dto, rowVersionsIn(ifMatch)),
    );
    const category = await this.findOne(id);
    if (!updated) throw preconditionFailed(rowVersionTag(category));
    return category;
  }

  /** With `ifMatch`, only if the category's version is one of it (412 otherwise). */
  async remove(id: number, ifMatch?: IfMatch): Promise<void> {
    let deleted: boolean;
    try {
      deleted = await this.categories.delete(id, rowVersionsIn(ifMatch));
    } catch (error) {
      if (error instanceof CategoryInUseError) {
        throw new ApiException(
          'CATEGORY_IN_USE',
          `Category ${id} still has pets; move or delete them first`,
        );
      }
      throw error;
    }
    if (!deleted) throw preconditionFailed(rowVersionTag(await this.findOne(id)));
  }
}

async function refusingTakenName<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (error instanceof CategoryNameTakenError) throw ApiException.taken('name');
    throw error;
  }
}
