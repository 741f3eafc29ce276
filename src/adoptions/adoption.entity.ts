import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryGeneratedColumn,
  UpdateDateColumn,
  VersionColumn,
} from 'typeorm';
import { Pet } from '../pets/pet.entity.js';
import { User } from '../users/user.entity.js';
import { ADOPTION_STATUSES, type AdoptionStatus } from './adoption-status.js';

@Entity({ name: 'adoptions' })
// Written by hand in the migrations: newest (highest id) first for the list's filters, the
// partial unique index that lets a pet have one open adoption, and the statistics' times.
@Index('IDX_adoptions_adopter', { synchronize: false })
@Index('IDX_adoptions_created', { synchronize: false })
@Index('IDX_adoptions_closed', { synchronize: false })
@Index('IDX_adoptions_pet', { synchronize: false })
@Index('IDX_adoptions_status', { synchronize: false })
@Index('UQ_adoptions_open_pet', { synchronize: false })
export class Adoption {
  @PrimaryGeneratedColumn('identity', {
    type: 'bigint',
    generatedIdentity: 'ALWAYS',
    primaryKeyConstraintName: 'PK_adoptions',
  })
  id: number;

  @Column({ name: 'pet_id', type: 'bigint' })
  petId: number;

  @ManyToOne(() => Pet, { onDelete: 'CASCADE', nullable: false })
  @JoinColumn({ name: 'pet_id', foreignKeyConstraintName: 'FK_adoptions_pet' })
  pet: Pet;

  /**
   * Null once the adopter's account is deleted. The deletion cancels the open adoptions and
   * clears this first (AdoptionsService.onAdopterDeleting); the key refuses any other way.
   */
  @Column({ name: 'adopter_id', type: 'bigint', nullable: true })
  adopterId: number | null;

  @ManyToOne(() => User, { onDelete: 'RESTRICT', nullable: true })
  @JoinColumn({ name: 'adopter_id', foreignKeyConstraintName: 'FK_adoptions_adopter' })
  adopter: User | null;

  @Column({ type: 'enum', enum: ADOPTION_STATUSES, enumName: 'adoption_status' })
  status: AdoptionStatus;

  @Column({ type: 'varchar', length: 1000, nullable: true })
  message: string | null;

  @Column({ name: 'hold_expires_at', type: 'timestamptz', precision: 3, nullable: true })
  holdExpiresAt: Date | null;

  @Column({ name: 'decided_by_id', type: 'bigint', nullable: true })
  decidedById: number | null;

  @ManyToOne(() => User, { onDelete: 'SET NULL', nullable: true })
  @JoinColumn({ name: 'decided_by_id', foreignKeyConstraintName: 'FK_adoptions_decided_by' })
  decidedBy: User | null;

  @Column({ type: 'varchar', length: 500, nullable: true })
  reason: string | null;

  /** When the move that ended it open was made (a later `return` keeps it); null while open. */
  @Column({ name: 'closed_at', type: 'timestamptz', precision: 3, nullable: true })
  closedAt: Date | null;

  /** Raised by every write of the row; the resource's ETag derives from it. */
  @VersionColumn({ default: 1 })
  version: number;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz', precision: 3 })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz', precision: 3 })
  updatedAt: Date;
}
