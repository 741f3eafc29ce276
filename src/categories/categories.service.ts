import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { ApiException } from '../common/errors/api-exception.js';
import { isForeignKeyViolation } from '../common/errors/database-errors.js';
import { Category } from './category.entity.js';
import type { CreateCategoryDto } from './dto/create-category.dto.js';
import type { UpdateCategoryDto } from './dto/update-category.dto.js';

/** Also ParseIdPipe's answer on the category routes, for ids that cannot exist. */
export const categoryNotFound = (id: number | string) =>
  new ApiException('CATEGORY_NOT_FOUND', `Category ${id} not found`);

@Injectable()
export class CategoriesService {
  constructor(@InjectRepository(Category) private readonly categories: Repository<Category>) {}

  findAll(): Promise<Category[]> {
    return this.categories.find({ order: { name: 'ASC', id: 'ASC' } });
  }

  async findOne(id: number): Promise<Category> {
    const category = await this.categories.findOneBy({ id });
    if (!category) throw categoryNotFound(id);
    return category;
  }

  create(dto: CreateCategoryDto): Promise<Category> {
    return this.categories.save(
      this.categories.create({ name: dto.name, description: dto.description ?? null }),
    );
  }

  async update(id: number, dto: UpdateCategoryDto): Promise<Category> {
    const category = await this.findOne(id);
    return this.categories.save(this.categories.merge(category, dto));
  }

  async remove(id: number): Promise<void> {
    try {
      const result = await this.categories.delete(id);
      if (!result.affected) throw categoryNotFound(id);
    } catch (error) {
      if (isForeignKeyViolation(error)) {
        throw new ApiException(
          'CATEGORY_IN_USE',
          `Category ${id} still has pets; move or delete them first`,
        );
      }
      throw error;
    }
  }
}
