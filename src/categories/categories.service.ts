import { Injectable } from '@nestjs/common';
import { InjectTransactionHost } from '@nestjs-cls/transactional';
import { ApiException } from '../common/errors/api-exception.js';
import {
  preconditionFailed,
  rowVersionsIn,
  rowVersionTag,
  type IfMatch,
} from '../common/http/conditional-requests.js';
import type { TxHost } from '../database/transactions.js';
import { DomainEvents } from '../events/domain-events.js';
import { CategoriesRepository } from './categories.repository.js';
import { categoryEvent } from './category-events.js';
import type { Category } from './category.entity.js';
import type { CreateCategoryDto } from './dto/create-category.dto.js';
import type { UpdateCategoryDto } from './dto/update-category.dto.js';

/** Also ParseIdPipe's answer on the category routes, for ids that cannot exist. */
export const categoryNotFound = (id: number | string) =>
  new ApiException('CATEGORY_NOT_FOUND', `Category ${id} not found`);

@Injectable()
export class CategoriesService {
  constructor(
    private readonly categories: CategoriesRepository,
    private readonly events: DomainEvents,
    @InjectTransactionHost() private readonly txHost: TxHost,
  ) {}

  findAll(): Promise<Category[]> {
    return this.categories.findAll();
  }

  async findOne(id: number): Promise<Category> {
    const category = await this.categories.findById(id);
    if (!category) throw categoryNotFound(id);
    return category;
  }

  /** Each change publishes its event (category-events.ts) in its transaction. */
  create(dto: CreateCategoryDto): Promise<Category> {
    return this.txHost.withTransaction(async () => {
      const category = await this.categories.insert({
        name: dto.name,
        description: dto.description ?? null,
      });
      await this.events.publish(
        categoryEvent('category.created', { before: null, after: category }),
      );
      return category;
    });
  }

  /** With `ifMatch`, only if the category's version is one of it (412 otherwise). */
  update(id: number, dto: UpdateCategoryDto, ifMatch?: IfMatch): Promise<Category> {
    return this.txHost.withTransaction(async () => {
      const before = await this.lockedForChange(id);
      const updated = await this.categories.update(id, dto, rowVersionsIn(ifMatch));
      if (!updated) throw preconditionFailed(rowVersionTag(before));
      const category = await this.findOne(id);
      await this.events.publish(categoryEvent('category.updated', { before, after: category }));
      return category;
    });
  }

  /** With `ifMatch`, only if the category's version is one of it (412 otherwise). */
  remove(id: number, ifMatch?: IfMatch): Promise<void> {
    return this.txHost.withTransaction(async () => {
      const before = await this.lockedForChange(id);
      const deleted = await this.categories.delete(id, rowVersionsIn(ifMatch));
      if (!deleted) throw preconditionFailed(rowVersionTag(before));
      await this.events.publish(categoryEvent('category.deleted', { before, after: null }));
    });
  }

  /** The category as the change starts from it, locked so that its event's `before` holds. */
  private async lockedForChange(id: number): Promise<Category> {
    const category = await this.categories.findByIdForUpdate(id);
    if (!category) throw categoryNotFound(id);
    return category;
  }
}
