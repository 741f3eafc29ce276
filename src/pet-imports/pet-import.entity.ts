import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';
import type { PetActor } from '../pets/pet-actor.js';
import type {
  PetImportCounts,
  PetImportError,
  PetImportFormat,
  PetImportMode,
  PetImportStatus,
} from './pet-import-status.js';

/** A catalogue import (docs/pet-imports.md): its file, and how far it got. */
@Entity({ name: 'pet_imports' })
export class PetImport {
  @PrimaryGeneratedColumn('identity', {
    type: 'bigint',
    generatedIdentity: 'ALWAYS',
    primaryKeyConstraintName: 'PK_pet_imports',
  })
  id: number;

  @Column({ type: 'varchar', length: 10 })
  status: PetImportStatus;

  @Column({ type: 'varchar', length: 6 })
  mode: PetImportMode;

  @Column({ name: 'dry_run', type: 'boolean' })
  dryRun: boolean;

  @Column({ type: 'varchar', length: 6 })
  format: PetImportFormat;

  /** The file as sent, kept until the import ends: a restart reads it again. */
  @Column({ type: 'bytea', nullable: true, select: false })
  file: Buffer | null;

  /** Who the pets' history names for the import's writes. */
  @Column({ type: 'jsonb' })
  actor: PetActor;

  @Column({ type: 'jsonb' })
  counts: PetImportCounts;

  /**
   * The durable cursor: the rows of the file done (applied or skipped), moved in the
   * transaction of the batch it covers, so that no row is applied twice.
   */
  @Column({ type: 'integer' })
  cursor: number;

  /** Every row validation refused (the errors shown are the first 1,000): the apply skips them. */
  @Column({ name: 'invalid_rows', type: 'integer', array: true })
  invalidRows: number[];

  @Column({ type: 'jsonb' })
  errors: PetImportError[];

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz', precision: 3 })
  createdAt: Date;

  @Column({ name: 'finished_at', type: 'timestamptz', precision: 3, nullable: true })
  finishedAt: Date | null;
}
