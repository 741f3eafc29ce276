import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { ApiException } from '../common/errors/api-exception.js';
import { isForeignKeyViolation } from '../common/errors/database-errors.js';
import { Category } from './category.entity.js';
import type { CreateCategoryDto } from './dto/create-category.dto.js';
import type { UpdateCategoryDto } from './dto/update-category.dto.js';

@Injectable()
export class CategoriesService {
  constructor(@InjectRepository(Category) private readonly categories: Repository<Category>) {}

  findAll(): Promise<Category[]> {
    return this.categories.find({ order: { name: 'ASC', id: 'ASC' } });
  }

  async findOne(id: string): Promise<Category> {
    // The id stays the decimal string ParseIdPipe checked; PostgreSQL compares it exactly.
    const category = await this.categories.findOneBy({ id: id as unknown as number });
    if (!category) throw new ApiException('CATEGORY_NOT_FOUND', `Category ${id} not found`);
    return category;
  }

  create(dto: CreateCategoryDto): Promise<Category> {
    return this.categories.save(
      this.categories.create({ name: dto.name, description: dto.description ?? null }),
    );
  }

  async update(id: string, dto: UpdateCategoryDto): Promise<Category> {
    const category = await this.findOne(id);
    return this.categories.save(this.categories.merge(category, dto));
  }

  async remove(id: string): Promise<void> {
    try {
      const result = await this.categories.delete(id);
      if (!result.affected) {
        throw new ApiException('CATEGORY_NOT_FOUND', `Category ${id} not found`);
      }
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
