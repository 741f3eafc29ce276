import { Injectable } from '@nestjs/common';
import { InjectTransactionHost } from '@nestjs-cls/transactional';
import type { Repository } from 'typeorm';
import type { TxHost } from '../database/transactions.js';
import { whereVersion } from '../database/where-version.js';
import { Category } from './category.entity.js';

/** The fields a request writes; the id and the timestamps come from the database. */
export type CategoryFields = Partial<Pick<Category, 'name' | 'description'>>;

/**
 * The categories module's only door to the database. A name taken in any case, or a delete
 * of a category pets still use, fails with the driver's violation, which the exception
 * filter answers (common/errors/constraint-errors.ts).
 */
@Injectable()
export class CategoriesRepository {
  constructor(@InjectTransactionHost() private readonly txHost: TxHost) {}

  private get categories(): Repository<Category> {
    return this.txHost.tx.getRepository(Category);
  }

  /** By name, then id. */
  findAll(): Promise<Category[]> {
    return this.categories.find({ order: { name: 'ASC', id: 'ASC' } });
  }

  findById(id: number): Promise<Category | null> {
    return this.categories.findOneBy({ id });
  }

  /** Inside a transaction: the row, locked until it ends, as a change starts from it. */
  findByIdForUpdate(id: number): Promise<Category | null> {
    return this.categories.findOne({ where: { id }, lock: { mode: 'pessimistic_write' } });
  }

  insert(fields: Required<CategoryFields>): Promise<Category> {
    return this.categories.save(this.categories.create(fields));
  }

  /**
   * Writes `changes` (fields left undefined are kept) in one statement. False when nothing
   * matched: no such category, or (with `versions`) its version is none of them.
   */
  async update(id: number, changes: CategoryFields, versions?: number[]): Promise<boolean> {
    const result = await this.categories.update(whereVersion(id, versions), changes);
    return Boolean(result.affected);
  }

  /** False when nothing matched, as for `update`. */
  async delete(id: number, versions?: number[]): Promise<boolean> {
    const result = await this.categories.delete(whereVersion(id, versions));
    return Boolean(result.affected);
  }
}
