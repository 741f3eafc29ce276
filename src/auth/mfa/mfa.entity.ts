import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryColumn,
  PrimaryGeneratedColumn,
  Unique,
} from 'typeorm';
import { User } from '../../users/user.entity.js';

/**
 * An account's TOTP factor (docs/identity.md, Second factor): enrolled, and in use once
 * confirmed with a first code. One per account; deleting the account deletes it.
 */
@Entity({ name: 'totp_factors' })
export class TotpFactor {
  @PrimaryColumn({ name: 'user_id', type: 'bigint', primaryKeyConstraintName: 'PK_totp_factors' })
  userId: number;

  // The primary key makes it one per account.
  @ManyToOne(() => User, { onDelete: 'CASCADE', nullable: false })
  @JoinColumn({ name: 'user_id', foreignKeyConstraintName: 'FK_totp_factors_user' })
  user: User;

  /** The base32 secret, sealed by SecretBox (AES-256-GCM, key id first); never in clear. */
  @Column({ type: 'text' })
  secret: string;

  @Column({ name: 'confirmed_at', type: 'timestamptz', precision: 3, nullable: true })
  confirmedAt: Date | null;

  /** The time step of the last code accepted: that one and earlier ones are refused. */
  @Column({ name: 'last_time_step', type: 'bigint', nullable: true })
  lastTimeStep: number | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz', precision: 3 })
  createdAt: Date;
}

/** One of the recovery codes a confirmation gave, as its SHA-256; each is used once. */
@Entity({ name: 'recovery_codes' })
@Unique('UQ_recovery_codes_user_code', ['userId', 'codeHash'])
export class RecoveryCode {
  @PrimaryGeneratedColumn('identity', {
    type: 'bigint',
    generatedIdentity: 'ALWAYS',
    primaryKeyConstraintName: 'PK_recovery_codes',
  })
  id: number;

  @Column({ name: 'user_id', type: 'bigint' })
  userId: number;

  @ManyToOne(() => User, { onDelete: 'CASCADE', nullable: false })
  @JoinColumn({ name: 'user_id', foreignKeyConstraintName: 'FK_recovery_codes_user' })
  user: User;

  @Column({ name: 'code_hash', type: 'char', length: 64 })
  codeHash: string;

  @Column({ name: 'used_at', type: 'timestamptz', precision: 3, nullable: true })
  usedAt: Date | null;
}

/**
 * A login that passed its password and waits for a second factor: the `mfaToken` as its
 * SHA-256, deleted when spent, after its last wrong code, or with the next one of its
 * account once expired.
 */
@Entity({ name: 'mfa_challenges' })
@Unique('UQ_mfa_challenges_token_hash', ['tokenHash'])
@Index('IDX_mfa_challenges_user_id', ['userId'])
export class MfaChallenge {
  @PrimaryGeneratedColumn('identity', {
    type: 'bigint',
    generatedIdentity: 'ALWAYS',
    primaryKeyConstraintName: 'PK_mfa_challenges',
  })
  id: number;

  @Column({ name: 'user_id', type: 'bigint' })
  userId: number;

  @ManyToOne(() => User, { onDelete: 'CASCADE', nullable: false })
  @JoinColumn({ name: 'user_id', foreignKeyConstraintName: 'FK_mfa_challenges_user' })
  user: User;

  @Column({ name: 'token_hash', type: 'char', length: 64 })
  tokenHash: string;

  @Column({ name: 'expires_at', type: 'timestamptz', precision: 3 })
  expiresAt: Date;

  @Column({ type: 'int', default: 0 })
  failures: number;
}
