import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { Pet } from './pet.entity.js';
import { Tag } from './tag.entity.js';

/**
 * A pet's link to a tag, with the pet's age beside it (migration KeepSearchFacts): a tag with
 * an age range counts from `IDX_pet_tags_tag_age` alone. Declared as an entity, not only as
 * `Pet.tags`' join table, so that the schema test checks the age and its index too.
 */
@Entity({ name: 'pet_tags' })
@Index('IDX_pet_tags_tag_age', ['tagId', 'petAge'])
export class PetTag {
  @PrimaryColumn({ name: 'pet_id', type: 'bigint' })
  petId: number;

  @PrimaryColumn({ name: 'tag_id', type: 'bigint' })
  tagId: number;

  @Column({ name: 'pet_age', type: 'integer', nullable: true })
  petAge: number | null;

  @ManyToOne(() => Pet, { onDelete: 'CASCADE', onUpdate: 'CASCADE' })
  @JoinColumn({ name: 'pet_id', foreignKeyConstraintName: 'FK_pet_tags_pet' })
  pet: Pet;

  @ManyToOne(() => Tag, { onDelete: 'CASCADE', onUpdate: 'CASCADE' })
  @JoinColumn({ name: 'tag_id', foreignKeyConstraintName: 'FK_pet_tags_tag' })
  tag: Tag;
}
