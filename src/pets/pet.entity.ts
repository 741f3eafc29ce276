import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  JoinTable,
  ManyToMany,
  ManyToOne,
  PrimaryGeneratedColumn,
  UpdateDateColumn,
  VersionColumn,
} from 'typeorm';
import { Category } from '../categories/category.entity.js';
import { PET_STATUSES, type PetStatus } from './pet-status.js';
import { Tag } from './tag.entity.js';

@Entity({ name: 'pets' })
// Serve the list's ORDER BY created_at DESC, id DESC with and without filters.
@Index('IDX_pets_created', { synchronize: false })
@Index('IDX_pets_category_status_created', { synchronize: false })
@Index('IDX_pets_status_created', { synchronize: false })
// Serve sort=age and sort=-age (ties by id descending, pets without an age last), migration AddPetSearch.
@Index('IDX_pets_age', { synchronize: false })
@Index('IDX_pets_age_desc', { synchronize: false })
// externalId is unique where set (migration AddPetExternalId); a duplicate is 409 EXTERNAL_ID_TAKEN.
@Index('UQ_pets_external_id', { synchronize: false })
export class Pet {
  @PrimaryGeneratedColumn('identity', { type: 'bigint', generatedIdentity: 'ALWAYS' })
  id: number;

  @Column({ type: 'varchar', length: 100 })
  name: string;

  @Column({ name: 'category_id', type: 'bigint' })
  categoryId: number;

  @ManyToOne(() => Category, { onDelete: 'RESTRICT', nullable: false })
  @JoinColumn({ name: 'category_id', foreignKeyConstraintName: 'FK_pets_category' })
  category: Category;

  @Column({ type: 'enum', enum: PET_STATUSES, enumName: 'pet_status' })
  status: PetStatus;

  @Column({ name: 'photo_urls', type: 'text', array: true, default: () => "'{}'" })
  photoUrls: string[];

  @Column({ type: 'integer', nullable: true })
  age: number | null;

  @Column({ type: 'varchar', length: 100, nullable: true })
  breed: string | null;

  @Column({ type: 'text', nullable: true })
  description: string | null;

  /** The shop's own id for the pet (imports upsert by it); unique where set. */
  @Column({ name: 'external_id', type: 'varchar', length: 100, nullable: true })
  externalId: string | null;

  /** The adoption the pet moved to `pending` through; null once it moves again. */
  @Column({ name: 'held_by', type: 'bigint', nullable: true })
  heldBy: number | null;

  @ManyToMany(() => Tag)
  @JoinTable({
    name: 'pet_tags',
    // The table is PetTag's (with each pet's age): described there, not twice.
    synchronize: false,
    joinColumn: { name: 'pet_id', foreignKeyConstraintName: 'FK_pet_tags_pet' },
    inverseJoinColumn: { name: 'tag_id', foreignKeyConstraintName: 'FK_pet_tags_tag' },
  })
  tags: Tag[];

  /**
   * The pet's tags as the API answers them, `[{id, name}]` by name: written with the links
   * by the statements that write them (pets/sql/pet-writes.sql.ts), read instead of them.
   */
  @Column({ name: 'tag_list', type: 'json', default: () => "'[]'" })
  tagList: { id: number; name: string }[];

  /** Raised by every write of the row; the resource's ETag derives from it. */
  @VersionColumn({ default: 1 })
  version: number;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz', precision: 3 })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz', precision: 3 })
  updatedAt: Date;
}
