import { Injectable } from '@nestjs/common';
import { InjectTransactionHost } from '@nestjs-cls/transactional';
import type { Repository } from 'typeorm';
import {
  isForeignKeyViolation,
  isUniqueViolation,
  violatedConstraint,
} from '../common/errors/database-errors.js';
import type { TxHost } from '../database/transactions.js';
import { whereVersion } from '../database/where-version.js';
import { Category } from './category.entity.js';

/** The fields a request writes; the id and the timestamps come from the database. */
export type CategoryFields = Partial<Pick<Category, 'name' | 'description'>>;

/** Another category has this name, regardless of case. */
export class CategoryNameTakenError extends Error {
  constructor() {
    super('category name taken');
  }
}

/** Pets still belong to the category (their foreign key refused the delete). */
export class CategoryInUseError extends Error {
  constructor() {
    super('category in use');
  }
}

/** The categories module's only door to the database. */
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
    return refusingTakenName(() => this.categories.save(this.categories.create(fields)));
  }

  /**
   * Writes `changes` (fields left undefined are kept) in one statement. False when nothing
   * matched: no such category, or (with `versions`) its version is none of them.
   */
  async update(id: number, changes: CategoryFields, versions?: number[]): Promise<boolean> {
    const result = await refusingTakenName(() =>
      this.categories.update(whereVersion(id, versions), changes),
    );
    return Boolean(result.affected);
  }

  /** False when nothing matched, as for `update`. */
  async delete(id: number, versions?: number[]): Promise<boolean> {
    try {
      const result = await this.categories.delete(whereVersion(id, versions));
      return Boolean(result.affected);
    } catch (error) {
      if (isForeignKeyViolation(error) && violatedConstraint(error) === 'FK_pets_category') {
        throw new CategoryInUseError();
      }
      throw error;
    }
  }
}

async function refusingTakenName<T>(statement: () => Promise<T>): Promise<T> {
  try {
    return await statement();
  } catch (error) {
    if (isUniqueViolation(error) && violatedConstraint(error) === 'UQ_categories_name_lower') {
      throw new CategoryNameTakenError();
    }
    throw error;
  }
}
