import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryGeneratedColumn,
  Unique,
} from 'typeorm';
import { Pet } from '../pets/pet.entity.js';
import { IMAGE_FORMATS, type ImageFormat } from './processing/image-format.js';

/** One upload: the main rendition's facts plus where both renditions are stored. */
@Entity({ name: 'pet_images' })
@Unique('UQ_pet_images_key', ['key'])
@Unique('UQ_pet_images_thumbnail_key', ['thumbnailKey'])
// A pet's images in upload order; also serves the cascade from pets.
@Index('IDX_pet_images_pet', ['petId', 'id'])
export class PetImage {
  @PrimaryGeneratedColumn('identity', { type: 'bigint', generatedIdentity: 'ALWAYS' })
  id: number;

  @Column({ name: 'pet_id', type: 'bigint' })
  petId: number;

  // Checked at commit: the pet's deletion publishes `pet.deleted`, and media's reaction
  // deletes these rows afterwards, in the same transaction (docs/media.md, "Pets and media").
  @ManyToOne(() => Pet, {
    onDelete: 'NO ACTION',
    deferrable: 'INITIALLY DEFERRED',
    nullable: false,
  })
  @JoinColumn({ name: 'pet_id', foreignKeyConstraintName: 'FK_pet_images_pet' })
  pet?: Pet;

  @Column({ type: 'varchar', length: 64 })
  key: string;

  @Column({ name: 'thumbnail_key', type: 'varchar', length: 64 })
  thumbnailKey: string;

  @Column({ type: 'varchar', length: 500, nullable: true })
  description: string | null;

  @Column({ type: 'integer' })
  width: number;

  @Column({ type: 'integer' })
  height: number;

  @Column({ type: 'enum', enum: IMAGE_FORMATS, enumName: 'image_format' })
  format: ImageFormat;

  @Column({ type: 'integer' })
  bytes: number;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz', precision: 3 })
  createdAt: Date;
}
