import { Column, Entity, Index, JoinColumn, OneToOne, PrimaryColumn } from 'typeorm';
import { PET_STATUSES, type PetStatus } from './pet-status.js';
import { Pet } from './pet.entity.js';

/**
 * A pet's search document and the facts its facets count, written only by the triggers of
 * src/database/schema/pet-search.sql, read by the search (`pet_search_query`).
 */
@Entity({ name: 'pet_documents' })
// GIN, which the entity cannot state: migration AddPetSearch.
@Index('IDX_pet_documents_document', { synchronize: false })
export class PetDocument {
  @PrimaryColumn({ name: 'pet_id', type: 'bigint', primaryKeyConstraintName: 'PK_pet_documents' })
  petId: number;

  /** Name (weight A), breed and tags (B), category name and description (C). */
  @Column({ type: 'tsvector' })
  document: string;

  @Column({ type: 'enum', enum: PET_STATUSES, enumName: 'pet_status' })
  status: PetStatus;

  @Column({ name: 'category_id', type: 'bigint' })
  categoryId: number;

  /** In id order. */
  @Column({ name: 'tag_ids', type: 'bigint', array: true })
  tagIds: number[];

  @OneToOne(() => Pet, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'pet_id', foreignKeyConstraintName: 'pet_documents_pet_id_fkey' })
  pet: Pet;
}
