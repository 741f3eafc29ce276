import { Column, Entity, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { Category } from '../categories/category.entity.js';
import { PET_STATUSES, type PetStatus } from './pet-status.js';

/**
 * Pets per (category, status), in shards: written only by the triggers of
 * src/database/schema/pet-counts.sql, read by the totals, the inventory and the facets. A
 * (category, status)'s count is the sum of its shards.
 */
@Entity({ name: 'pet_counts' })
export class PetCount {
  @PrimaryColumn({ name: 'category_id', type: 'bigint', primaryKeyConstraintName: 'PK_pet_counts' })
  categoryId: number;

  @PrimaryColumn({
    type: 'enum',
    enum: PET_STATUSES,
    enumName: 'pet_status',
    primaryKeyConstraintName: 'PK_pet_counts',
  })
  status: PetStatus;

  /** The writing session's `pg_backend_pid() % 16`. */
  @PrimaryColumn({ type: 'smallint', default: 0, primaryKeyConstraintName: 'PK_pet_counts' })
  shard: number;

  /** May be negative in one shard; never in the sum. */
  @Column({ type: 'bigint' })
  count: number;

  @ManyToOne(() => Category, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'category_id', foreignKeyConstraintName: 'pet_counts_category_id_fkey' })
  category: Category;
}
