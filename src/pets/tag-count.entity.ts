import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { Category } from '../categories/category.entity.js';
import { PET_STATUSES, type PetStatus } from './pet-status.js';
import { Tag } from './tag.entity.js';

/**
 * Links per (tag, category, status), in shards like `PetCount`: written only by the
 * triggers of src/database/schema/tag-counts.sql, read by the facets of the default views.
 */
@Entity({ name: 'tag_counts' })
@Index('IDX_tag_counts_category', ['categoryId'])
export class TagCount {
  @PrimaryColumn({ name: 'tag_id', type: 'bigint', primaryKeyConstraintName: 'PK_tag_counts' })
  tagId: number;

  @PrimaryColumn({ name: 'category_id', type: 'bigint', primaryKeyConstraintName: 'PK_tag_counts' })
  categoryId: number;

  @PrimaryColumn({
    type: 'enum',
    enum: PET_STATUSES,
    enumName: 'pet_status',
    primaryKeyConstraintName: 'PK_tag_counts',
  })
  status: PetStatus;

  @PrimaryColumn({ type: 'smallint', primaryKeyConstraintName: 'PK_tag_counts' })
  shard: number;

  @Column({ type: 'bigint' })
  count: number;

  @ManyToOne(() => Tag, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'tag_id', foreignKeyConstraintName: 'tag_counts_tag_id_fkey' })
  tag: Tag;

  @ManyToOne(() => Category, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'category_id', foreignKeyConstraintName: 'tag_counts_category_id_fkey' })
  category: Category;
}
